/**
 * Issues 19 and 20 end to end: one compiled `proxmox-cloud-controller-manager --cloud-provider=composite` gives a
 * Proxmox VE cluster both node initialisation (the `proxmox` part) and LoadBalancer Services (`metal`'s address pool,
 * `nodes: false`), against the API emulator and one emulated Proxmox VE cluster, region `lab`. In order: VM Nodes
 * initialised with `proxmox://` provider IDs and their labels; a Service gets a metal address while Proxmox VE is
 * asked nothing but its reads; a migrated VM's Node relabelled through the composite; with the Proxmox cluster down,
 * nothing is deleted or tainted, a Warning says why, a new Service still gets an address, and `doctor` names each
 * part and the cluster that fails; back up, the Node whose VM was deleted meanwhile is deleted.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Event, Node, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import type { ProxmoxEmulator } from "../sandbox/proxmox/server.ts";
import type { EmulatedVM } from "../sandbox/proxmox/state.ts";
import { executable, runExecutable } from "./support/executables.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { type ProxmoxClusters, registerVMNode, setNodeReady, startProxmoxClusters } from "./support/proxmox.ts";

setDefaultTimeout(120_000);

const proxmoxZoneLabel = "topology.proxmox.sinextra.dev/zone";
/** metal's pool: 192.0.2.0/28. */
const poolAddress = /^192\.0\.2\.([0-9]|1[0-5])$/;

let dir = "";
let api: ApiServer;
let client: KubeClient;
let pve: ProxmoxClusters;
let lab: ProxmoxEmulator;
let manager: RunningProcess;
const files = { kubeconfig: "", cloudConfig: "" };
const vms: Record<string, EmulatedVM> = {};

const compositeConfig = () => `providers:
  - name: proxmox
    config:
      clusters:
${pve.clustersYaml("        ")}
  - name: metal
    nodes: false
    config:
      loadBalancer:
        global: { addresses: [192.0.2.0/28] }
loadBalancer: metal
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-proxmox-metal-"));
  pve = await startProxmoxClusters(dir, [{ region: "lab", nodes: ["pve-a", "pve-b"] }]);
  lab = pve.byRegion.get("lab")!;
  api = await startApiServer({ bookmarkIntervalMs: 2_000 });
  files.kubeconfig = join(dir, "kubeconfig");
  files.cloudConfig = join(dir, "composite.yaml");
  await api.writeKubeconfig(files.kubeconfig);
  client = createKubeClient(loadTransport({ kubeconfig: files.kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  await writeFile(files.cloudConfig, compositeConfig(), { mode: 0o600 });

  vms["k8s-1"] = lab.state.addVM({ name: "k8s-1", node: "pve-a", cpus: 4, maxmem: 8 * 2 ** 30 });
  vms["k8s-2"] = lab.state.addVM({ name: "k8s-2", node: "pve-b" });
  await registerVMNode(client, "k8s-1", vms["k8s-1"].uuid, "10.0.0.11");
  await registerVMNode(client, "k8s-2", vms["k8s-2"].uuid, "10.0.0.12");
  const flags = [
    "--cloud-provider=composite",
    "--controllers=cloud-node,cloud-node-lifecycle,service",
    "--node-status-update-frequency=1s",
  ];
  manager = spawnCollecting(await managerCommand(files, flags, { provider: "proxmox", clusterCIDR: "" }));
}, 180_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await api?.stop();
  await pve?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `poll` whose failure shows the manager's last output. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  await poll(condition, { timeoutMs, message: what }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager output:\n${manager.output().slice(-3000)}`);
  });
}

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};
const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

async function eventOn(name: string, reason: string): Promise<Event | undefined> {
  const list = await client.list<Event>(Resources.events, { fieldSelector: `involvedObject.name=${name}` });
  return list.items.find((e) => e.reason === reason);
}

async function waitEvent(name: string, reason: string): Promise<Event> {
  let event: Event | undefined;
  await until(async () => {
    event = await eventOn(name, reason);
    return event !== undefined;
  }, `a ${reason} event on ${name}`);
  return event!;
}

/** Creates a LoadBalancer Service and waits for its address. */
async function serviceAddress(name: string): Promise<string> {
  const spec = { type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }] };
  await client.create(Resources.services, { metadata: { name, namespace: "default" }, spec }, { namespace: "default" });
  let ip = "";
  await until(async () => {
    const svc = await client.get<Service>(Resources.services, name, { namespace: "default" });
    ip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? "";
    return ip !== "";
  }, `an address for Service ${name}`);
  return ip;
}

/** Proxmox VE calls the provider makes to find and describe VMs: all reads. */
const vmReads =
  /^\/api2\/json\/(version|cluster\/resources\?type=vm|nodes\/[^/]+\/qemu\/\d+\/(config|status\/current))$/;

describe("proxmox + metal under one compiled proxmox-cloud-controller-manager", () => {
  test("VM Nodes are initialised by the proxmox part: proxmox:// provider IDs, region, zone, instance type, labels", async () => {
    for (const name of ["k8s-1", "k8s-2"]) await until(() => initialised(nodeNamed(name)), `${name} initialised`);
    const n1 = nodeNamed("k8s-1")!;
    expect(n1.spec?.providerID).toBe(`proxmox://lab/${vms["k8s-1"]!.vmid}`);
    expect(n1.metadata?.labels).toMatchObject({
      [Labels.region]: "lab",
      [Labels.zone]: "pve-a",
      [Labels.instanceType]: "4VCPU-8GB",
      "topology.proxmox.sinextra.dev/region": "lab",
      [proxmoxZoneLabel]: "pve-a",
    });
    expect(nodeNamed("k8s-2")!.spec?.providerID).toBe(`proxmox://lab/${vms["k8s-2"]!.vmid}`);
    expect(nodeNamed("k8s-2")!.metadata?.labels?.[Labels.zone]).toBe("pve-b");
    await until(
      () => (nodeNamed("k8s-1")?.status?.addresses ?? []).some((a) => a.address === "10.0.0.11"),
      "k8s-1's kubelet address",
    );
  });

  test("a LoadBalancer Service gets an address from metal's pool; Proxmox VE is only read, and only about VMs", async () => {
    expect(await serviceAddress("web")).toMatch(poolAddress);
    expect((await eventOn("web", "EnsuredLoadBalancer"))?.message).toBe("Ensured load balancer");
    const foreign = lab.calls.filter((c) => c.method !== "GET" || !vmReads.test(c.path));
    expect(foreign).toEqual([]);
    expect(lab.calls.length).toBeGreaterThan(0);
  });

  test("a migrated VM's Node is relabelled through the composite (its provider zone label; Kubernetes' stays)", async () => {
    lab.state.migrateVM(vms["k8s-1"]!.vmid, "pve-b");
    await until(() => nodeNamed("k8s-1")?.metadata?.labels?.[proxmoxZoneLabel] === "pve-b", "k8s-1 relabelled pve-b");
    // Without features.force_update_labels, as with proxmox alone (docs/providers/proxmox.md, "Migration").
    expect(nodeNamed("k8s-1")?.metadata?.labels?.[Labels.zone]).toBe("pve-a");
  });

  test("the Proxmox cluster down: nothing deleted or tainted, a Warning says why, Services go on, doctor names the parts", async () => {
    await lab.setDown(true);
    lab.state.deleteVM(vms["k8s-2"]!.vmid);
    await setNodeReady(client, "k8s-2", "Unknown");
    await setNodeReady(client, "k8s-1", "Unknown");
    const warning = await waitEvent("k8s-2", "CloudProviderUnavailable");
    expect(warning.message).toContain('cannot ask provider "proxmox" about this node (');
    expect(warning.message).toContain("proxmox/api[lab]");
    expect(warning.message).toEndWith("the node is kept as it is until it answers");

    // A new VM's kubelet registers meanwhile: it waits, uninitialised, and doctor says whose it is.
    const k8s3 = lab.state.addVM({ name: "k8s-3", node: "pve-a" });
    await registerVMNode(client, "k8s-3", k8s3.uuid);
    expect(await serviceAddress("api")).toMatch(poolAddress);

    // Several lifecycle rounds have asked the unreachable cluster by now, each leaving both Nodes alone.
    await until(async () => ((await eventOn("k8s-2", "CloudProviderUnavailable"))?.count ?? 0) >= 3, "3 rounds");
    for (const name of ["k8s-1", "k8s-2"]) {
      expect(nodeNamed(name)).toBeDefined();
      expect((nodeNamed(name)?.spec?.taints ?? []).map((t) => t.key)).not.toContain(Taints.shutdown);
    }

    const doctor = await runExecutable(await executable("proxmox"), [
      "doctor",
      "--cloud-provider=composite",
      `--cloud-config=${files.cloudConfig}`,
      `--kubeconfig=${files.kubeconfig}`,
    ]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      'FAIL provider "proxmox" (composite part): unreachable (will be retried): 1 of 1 Proxmox clusters failed:',
    );
    expect(doctor.stdout).toContain("cluster lab: proxmox/api[lab].version");
    expect(doctor.stdout).toContain('note provider "metal" (composite part) offers no credential check');
    expect(doctor.stdout).toContain('belongs to not yet assigned (no provider ID): offered to "proxmox"');
    expect(doctor.stdout).toMatch(/- k8s-3: /);
    expect(doctor.stdout.indexOf('provider "proxmox"')).toBeLessThan(doctor.stdout.indexOf('provider "metal"'));

    await lab.setDown(false);
    await until(() => nodeNamed("k8s-2") === undefined, "k8s-2 deleted once its cluster answers");
    await until(() => initialised(nodeNamed("k8s-3")), "k8s-3 initialised");
    expect(nodeNamed("k8s-1")).toBeDefined();
    expect(manager.output()).not.toContain("Deleting node k8s-1");
  }, 240_000);
});
