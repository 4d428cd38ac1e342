/**
 * A node whose address patch fails while it is initialised gets its addresses within seconds
 * once the API recovers, not at the next five-minute refresh. The API emulator, the simulated cloud and the
 * kubelets run in this process (so the test turns the fault on and off); the manager is the compiled executable.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Taints } from "../kube/well-known.ts";
import type { ApiServer } from "../sandbox/apiserver/server.ts";
import { executable } from "./support/executables.ts";
import { type InProcessCluster, startInProcessCluster } from "./support/in-process.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

setDefaultTimeout(180_000);

const NODES = 5;
let cluster: InProcessCluster;
let api: ApiServer;
let client: KubeClient;
let manager: RunningProcess | undefined;

beforeAll(async () => {
  await executable();
  cluster = await startInProcessCluster({ name: "addresses", machines: NODES });
  ({ api, client } = cluster);
}, 300_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await cluster?.stop();
});

const nodes = async () => (await client.list<Node>(Resources.nodes)).items;
const initialised = (n: Node) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const hasCloudAddresses = (n: Node) => (n.status?.addresses ?? []).some((a) => a.type === "InternalIP");

test("addresses whose patch failed during initialisation land within seconds once the API recovers", async () => {
  // Every status patch fails: the manager can initialise nodes (an update) but not write their addresses.
  api.faults.failRate(1, { status: 503, message: "etcd is unavailable" }, { method: "PATCH", path: /\/status$/ });
  manager = spawnCollecting(await managerCommand(cluster.files, ["--controllers=cloud-node"]));
  await poll(async () => (await nodes()).every(initialised), { timeoutMs: 60_000, message: "every node initialised" });
  expect((await nodes()).filter(hasCloudAddresses)).toEqual([]);

  const cleared = performance.now();
  api.faults.clear();
  // The periodic refresh is five minutes away: only the retry can bring the addresses within this deadline.
  await poll(async () => (await nodes()).every(hasCloudAddresses), { timeoutMs: 60_000, message: "every address" });
  const seconds = ((performance.now() - cleared) / 1000).toFixed(1);
  console.log(`node-addresses e2e: all ${NODES} nodes had their addresses ${seconds}s after the faults cleared`);
  expect(manager.output()).toContain("failed to update the addresses of node");
});
