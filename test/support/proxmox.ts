/**
 * What the Proxmox end-to-end tests share: emulated Proxmox VE clusters (HTTPS under one CA written to `ca.pem`,
 * one API token, the first cluster's token in the cloud-config and every other's in files, as operators do both),
 * the `clusters:` entries of a proxmox cloud-config for them, and a kubelet's registration of a VM's Node.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { selfSignedTls } from "../../sandbox/apiserver/tls.ts";
import { type ProxmoxEmulator, startProxmoxEmulator } from "../../sandbox/proxmox/server.ts";
import { ProxmoxState } from "../../sandbox/proxmox/state.ts";

export const proxmoxToken = { id: "kubernetes@pve!ccm", secret: "0b9c7d2e-5f1a-4c3b-9d8e-7f6a5b4c3d2e" };

export interface ProxmoxClusters {
  /** By region, in the order given. */
  readonly byRegion: ReadonlyMap<string, ProxmoxEmulator>;
  /** The `clusters:` list of a proxmox cloud-config, as YAML flow mappings, one per line, indented by `indent`. */
  clustersYaml(indent: string): string;
  stop(): Promise<void>;
}

/** One emulated cluster per region, each with its own Proxmox nodes; files go to `dir`. */
export async function startProxmoxClusters(
  dir: string,
  regions: readonly {
    readonly region: string;
    readonly nodes: readonly string[];
    /** How its errors read (sandbox/proxmox/server.ts); default with the body's `message`. */
    readonly errors?: "message" | "reason-only";
  }[],
): Promise<ProxmoxClusters> {
  const tls = await selfSignedTls(Date.now);
  await writeFile(join(dir, "ca.pem"), tls.cert);
  const byRegion = new Map<string, ProxmoxEmulator>();
  for (const { region, nodes, errors } of regions) {
    const state = new ProxmoxState(nodes);
    byRegion.set(region, await startProxmoxEmulator({ tokens: [proxmoxToken], state, tls, ...(errors && { errors }) }));
    await writeFile(join(dir, `${region}-id`), `${proxmoxToken.id}\n`, { mode: 0o600 });
    await writeFile(join(dir, `${region}-secret`), `${proxmoxToken.secret}\n`, { mode: 0o600 });
  }
  return {
    byRegion,
    clustersYaml: (indent) =>
      [...byRegion]
        .map(([region, emulator], i) => {
          const token =
            i === 0
              ? `token_id: "${proxmoxToken.id}", token_secret: "${proxmoxToken.secret}"`
              : `token_id_file: ${dir}/${region}-id, token_secret_file: ${dir}/${region}-secret`;
          return `${indent}- { url: "${emulator.url}", ca_file: ${dir}/ca.pem, ${token}, region: ${region} }`;
        })
        .join("\n"),
    async stop() {
      await Promise.all([...byRegion.values()].map((e) => e.stop()));
    },
  };
}

/** A kubelet's registration of a VM's Node: tainted uninitialized, Ready, its system UUID and maybe its --node-ip. */
export async function registerVMNode(client: KubeClient, name: string, uuid: string, nodeIP?: string): Promise<void> {
  await client.create(Resources.nodes, {
    metadata: { name, ...(nodeIP ? { annotations: { "alpha.kubernetes.io/provided-node-ip": nodeIP } } : {}) },
    spec: { taints: [{ key: Taints.uninitialized, value: "true", effect: "NoSchedule" }] },
  } satisfies Node);
  await setNodeReady(client, name, "True");
  await client.patch(
    Resources.nodes,
    name,
    "strategic",
    { status: { nodeInfo: { systemUUID: uuid.toUpperCase() } } },
    { subresource: "status" },
  );
}

/** The Ready condition as a kubelet posts it ("Unknown": as the lifecycle controller sees a silent kubelet). */
export async function setNodeReady(client: KubeClient, name: string, status: "True" | "Unknown"): Promise<void> {
  const at = new Date().toISOString();
  const condition = {
    type: "Ready",
    status,
    reason: "e2e",
    message: "e2e",
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  };
  await client.patch(
    Resources.nodes,
    name,
    "strategic",
    { status: { conditions: [condition] } },
    { subresource: "status" },
  );
}
