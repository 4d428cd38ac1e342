/**
 * End to end: the compiled `proxmox-cloud-controller-manager` against the API emulator and two emulated
 * Proxmox VE clusters (HTTPS with their own CA; `east` with a token in the cloud-config, `west` with token files and
 * errors said only in the status line, as releases before January 2025 say them).
 * First with network mode `default` (addresses from the kubelet), then `qemu` (from the guest agent) with
 * `force_update_labels`: nodes initialised with provider ID, labels and addresses; a stopped VM's node tainted; a
 * deleted VM's NotReady node deleted; a cluster down deletes nothing; a migrated VM's node relabelled.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import type { ProxmoxEmulator } from "../sandbox/proxmox/server.ts";
import { startE2eApiServer, stopManager, tearDown } from "./support/apiserver.ts";
import { runExecutable } from "./support/executables.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";
import { type ProxmoxClusters, registerVMNode, setNodeReady, startProxmoxClusters } from "./support/proxmox.ts";

let api: ApiServer;
let client: KubeClient;
let pve: ProxmoxClusters;
let east: ProxmoxEmulator;
let west: ProxmoxEmulator;
let dir = "";
let manager: RunningProcess | undefined;
const tail = () => manager?.output().slice(-3000) ?? "";

const config = (features: string) => `
features: ${features}
clusters:
${pve.clustersYaml("  ")}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-proxmox-"));
  pve = await startProxmoxClusters(dir, [
    { region: "east", nodes: ["pve-a", "pve-b"] },
    // As Proxmox VE before January 2025: an error's text only in the status line.
    { region: "west", nodes: ["pve-c", "pve-d"], errors: "reason-only" },
  ]);
  east = pve.byRegion.get("east")!;
  west = pve.byRegion.get("west")!;
  ({ api, client } = await startE2eApiServer(dir));
}, 60_000);

afterAll(() => tearDown(manager, [api, pve], dir));

async function startManager(features: string): Promise<void> {
  await stopManager(manager, "SIGTERM");
  const files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "proxmox.yaml") };
  await writeFile(files.cloudConfig, config(features), { mode: 0o600 });
  const flags = ["--controllers=cloud-node,cloud-node-lifecycle", "--node-status-update-frequency=1s"];
  manager = spawnCollecting(await managerCommand(files, flags, { provider: "proxmox", clusterCIDR: "" }));
}

const register = (name: string, uuid: string, nodeIP?: string) => registerVMNode(client, name, uuid, nodeIP);
const setReady = (name: string, status: "True" | "Unknown") => setNodeReady(client, name, status);

const nodeNamed = (name: string): Node | undefined => {
  try {
    return api.store.get(Resources.nodes, name) as Node;
  } catch {
    return undefined;
  }
};

async function until(what: string, check: (n: Node | undefined) => boolean, name: string, timeoutMs = 60_000) {
  await poll(() => check(nodeNamed(name)), { timeoutMs, message: `${name}: ${what}` }).catch((err) => {
    throw new Error(`${(err as Error).message}\nnode: ${JSON.stringify(nodeNamed(name))}\nmanager said:\n${tail()}`);
  });
}

const initialised = (n: Node | undefined) =>
  n !== undefined && !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const addresses = (n: Node | undefined) => (n?.status?.addresses ?? []).map((a) => `${a.type} ${a.address}`);

test("network mode default: nodes of both clusters initialised with provider ID, labels and the kubelet's address", async () => {
  const e1 = east.state.addVM({ name: "e1", node: "pve-b", cpus: 4, maxmem: 8 * 2 ** 30 });
  const w1 = west.state.addVM({
    name: "w1",
    node: "pve-d",
    sku: "c2.large",
    agent: [{ name: "eth0", addresses: ["192.0.2.41"] }],
  });
  await register("e1", e1.uuid, "10.0.0.11");
  await register("w1", w1.uuid, "10.0.0.21");
  await startManager("{}");
  await until("initialised", initialised, "e1");
  await until("initialised", initialised, "w1");
  const n1 = nodeNamed("e1")!;
  expect(n1.spec?.providerID).toBe(`proxmox://east/${e1.vmid}`);
  expect(n1.metadata?.labels).toMatchObject({
    "topology.kubernetes.io/region": "east",
    "topology.kubernetes.io/zone": "pve-b",
    "node.kubernetes.io/instance-type": "4VCPU-8GB",
    "topology.proxmox.sinextra.dev/zone": "pve-b",
  });
  const n2 = nodeNamed("w1")!;
  expect(n2.spec?.providerID).toBe(`proxmox://west/${w1.vmid}`);
  expect(n2.metadata?.labels).toMatchObject({
    "topology.kubernetes.io/region": "west",
    "node.kubernetes.io/instance-type": "c2.large",
  });
  await until("the kubelet's address, not the agent's", (n) => addresses(n).includes("InternalIP 10.0.0.21"), "w1");
  expect(addresses(nodeNamed("w1"))).not.toContain("InternalIP 192.0.2.41");
}, 120_000);

test("network mode qemu: the guest agent's addresses, ExternalIP inside external_ip_cidrs", async () => {
  await startManager('{ force_update_labels: true, network: { mode: qemu, external_ip_cidrs: "203.0.113.0/24" } }');
  const q1 = west.state.addVM({
    name: "q1",
    node: "pve-c",
    agent: [{ name: "eth0", addresses: ["192.168.7.31", "203.0.113.31", "fe80::31"] }],
  });
  await register("q1", q1.uuid);
  await until("initialised", initialised, "q1");
  await until(
    "agent addresses",
    (n) => addresses(n).join() === "Hostname q1,InternalIP 192.168.7.31,ExternalIP 203.0.113.31",
    "q1",
  );
}, 120_000);

test("a stopped VM's NotReady node gets the shutdown taint; started again, loses it", async () => {
  const w1 = west.state.listVMs().find((vm) => vm.name === "w1")!;
  west.state.updateVM(w1.vmid, { status: "stopped" });
  await setReady("w1", "Unknown");
  await until("shutdown taint", (n) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown), "w1");
  west.state.updateVM(w1.vmid, { status: "running" });
  await setReady("w1", "True");
  await until("no shutdown taint", (n) => !(n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown), "w1");
}, 120_000);

test("a migrated VM's node is relabelled with its new Proxmox node", async () => {
  const e1 = east.state.listVMs().find((vm) => vm.name === "e1")!;
  east.state.migrateVM(e1.vmid, "pve-a");
  await until(
    "zone labels pve-a",
    (n) =>
      n?.metadata?.labels?.["topology.proxmox.sinextra.dev/zone"] === "pve-a" &&
      n.metadata.labels["topology.kubernetes.io/zone"] === "pve-a",
    "e1",
  );
}, 120_000);

test("a cluster that does not answer deletes nothing; a VM deleted from a cluster that answers deletes its NotReady node", async () => {
  const w1 = west.state.listVMs().find((vm) => vm.name === "w1")!;
  await west.setDown(true);
  west.state.deleteVM(w1.vmid);
  await setReady("w1", "Unknown");
  const failuresBefore = manager!.output().split("proxmox/api[west]").length;
  // Several lifecycle rounds must have asked the unreachable cluster and failed, each leaving the node alone.
  await poll(() => manager!.output().split("proxmox/api[west]").length >= failuresBefore + 3, {
    timeoutMs: 120_000,
    message: "three failed lookups in the unreachable cluster west",
  }).catch((err) => {
    throw new Error(`${(err as Error).message}\nmanager said:\n${tail()}`);
  });
  expect(nodeNamed("w1")).toBeDefined();
  expect(nodeNamed("q1")).toBeDefined();

  await west.setDown(false);
  await until("deleted", (n) => n === undefined, "w1");
  expect(nodeNamed("q1")).toBeDefined();
  expect(nodeNamed("e1")).toBeDefined();
}, 240_000);

test.each([
  [
    "a url without /api2/json",
    "url",
    "must end in the API's path /api2/json, such as https://pve-1.example.com:8006/api2/json",
  ],
  ["a ca_file that is no PEM certificate", "ca_file", "ca.der holds no PEM certificate"],
])(
  "%s: the manager exits 1 and doctor fails, naming the key",
  async (_, key, problem) => {
    const files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, `bad-${key}.yaml`) };
    await writeFile(join(dir, "ca.der"), new Uint8Array([0x30, 0x82, 0x01, 0x0a, 0x30, 0x81]));
    const clusters = pve.clustersYaml("  ");
    const bad =
      key === "url"
        ? clusters.replace(`${east.url}"`, `${east.url.replace("/api2/json", "")}"`)
        : clusters.replace(`ca_file: ${dir}/ca.pem`, `ca_file: ${dir}/ca.der`);
    await writeFile(files.cloudConfig, `clusters:\n${bad}\n`, { mode: 0o600 });
    const [path = "", ...args] = await managerCommand(files, [], { provider: "proxmox", clusterCIDR: "" });
    const r = await runExecutable(path, args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`- clusters[0].${key}: `);
    expect(r.stderr).toContain(problem);

    const checked = await runExecutable(path, [
      "doctor",
      `--cloud-config=${files.cloudConfig}`,
      `--kubeconfig=${files.kubeconfig}`,
    ]);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`- clusters[0].${key}: `);
    expect(checked.stdout).toContain(problem);
  },
  120_000,
);
