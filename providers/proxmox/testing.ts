/**
 * Test support for the proxmox provider: emulated Proxmox VE clusters on loopback (sandbox/proxmox) and the provider
 * built by its real factory against them, with the CA read from a fake file. Not imported by the provider itself.
 */
import { Resources } from "../../kube/client-types.ts";
import { cacheTransform } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { selfSignedTls } from "../../sandbox/apiserver/tls.ts";
import {
  type ProxmoxEmulator,
  type ProxmoxEmulatorOptions,
  startProxmoxEmulator,
} from "../../sandbox/proxmox/server.ts";
import { ProxmoxState } from "../../sandbox/proxmox/state.ts";
import type { CloudProvider } from "../cloud.ts";
import { proxmox } from "./provider.ts";

type NodeInfo = NonNullable<NonNullable<Node["status"]>["nodeInfo"]>;

export const testToken = { id: "kubernetes@pve!ccm", secret: "8f7a1c2e-0000-4000-8000-00000000cafe" };

export interface TestClusters {
  readonly clusters: Record<string, ProxmoxEmulator>;
  /** The provider from `features` (YAML of the features mapping) over every cluster. */
  provider(features?: string): Promise<CloudProvider>;
  /** The cloud-config text for the clusters, with `ca_file: ca.pem`. */
  config(features?: string): string;
  stop(): Promise<void>;
}

/**
 * One emulator per region (default `east` with pve-a, pve-b and `west` with pve-c), sharing one CA; `emulator` sets
 * how they answer (as which Proxmox VE release).
 */
export async function startTestClusters(
  regions: Record<string, readonly string[]> = { east: ["pve-a", "pve-b"], west: ["pve-c"] },
  emulator: Pick<ProxmoxEmulatorOptions, "errors" | "unauthorizedDelayMs"> = {},
): Promise<TestClusters> {
  const tls = await selfSignedTls(Date.now);
  const clusters: Record<string, ProxmoxEmulator> = {};
  for (const [region, nodes] of Object.entries(regions)) {
    clusters[region] = await startProxmoxEmulator({
      ...emulator,
      tokens: [testToken],
      state: new ProxmoxState(nodes),
      tls,
    });
  }
  const config = (features = "{}") =>
    [
      `features: ${features}`,
      "clusters:",
      ...Object.entries(clusters).map(
        ([region, e]) =>
          `  - { url: "${e.url}", ca_file: ca.pem, token_id: "${testToken.id}", token_secret: "${testToken.secret}", region: ${region} }`,
      ),
    ].join("\n");
  return {
    clusters,
    config,
    provider: (features) =>
      proxmox.build(
        { config: config(features), configSource: "test.yaml", env: {} },
        { readFile: async () => tls.cert, retry: { maxRetries: 0 } },
      ),
    stop: async () => {
      await Promise.all(Object.values(clusters).map((e) => e.stop()));
    },
  };
}

export const ctx = { signal: new AbortController().signal };

export function node(
  name: string,
  tweaks: {
    providerID?: string;
    uuid?: string;
    nodeIP?: string;
    labels?: Record<string, string>;
    tainted?: boolean;
  } = {},
): Node {
  const n: Node = { metadata: { name }, spec: {} };
  if (tweaks.nodeIP) n.metadata!.annotations = { "alpha.kubernetes.io/provided-node-ip": tweaks.nodeIP };
  if (tweaks.labels) n.metadata!.labels = { ...tweaks.labels };
  if (tweaks.providerID) n.spec!.providerID = tweaks.providerID;
  if (tweaks.tainted) {
    n.spec!.taints = [{ key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" }];
  }
  // A kubelet reports the rest of nodeInfo too; the provider reads only this.
  if (tweaks.uuid) {
    n.status = { nodeInfo: { systemUUID: tweaks.uuid, kubeletVersion: "v1.30.0" } as NodeInfo };
  }
  // As the controllers hand it over: from the informer cache, trimmed to its keep-list (kube/trim.ts).
  return cacheTransform<Node>(Resources.nodes)(n);
}
