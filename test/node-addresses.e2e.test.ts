/**
 * Issue 16, item 7: a node whose address patch fails while it is initialised gets its addresses within seconds
 * once the API recovers, not at the next five-minute refresh. The API emulator, the simulated cloud and the
 * kubelets run in this process (so the test turns the fault on and off); the manager is the compiled executable.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Taints } from "../kube/well-known.ts";
import { type ApiServer, startApiServer } from "../sandbox/apiserver/server.ts";
import { createMachines } from "../sandbox/cloud/fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../sandbox/cloud/server.ts";
import { startKubelets } from "../sandbox/kubelets.ts";
import { executable } from "./support/executables.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

setDefaultTimeout(180_000);

const NODES = 5;
const quiet = createConsola({ level: -999 });
const stopAll = new AbortController();
let api: ApiServer;
let cloud: SimulatedCloud;
let client: KubeClient;
let dir = "";
let files: { kubeconfig: string; cloudConfig: string };
let kubeletsDone: Promise<void> = Promise.resolve();
let manager: RunningProcess | undefined;

beforeAll(async () => {
  await executable();
  dir = await mkdtemp(join(tmpdir(), "ccm-addresses-"));
  api = await startApiServer();
  const token = randomBytes(16).toString("hex");
  cloud = startSimulatedCloud({ token });
  files = { kubeconfig: join(dir, "kubeconfig"), cloudConfig: join(dir, "cloud.yaml") };
  await api.writeKubeconfig(files.kubeconfig);
  await writeFile(files.cloudConfig, `url: ${cloud.url}\ntoken: ${token}\n`, { mode: 0o600 });
  client = createKubeClient(loadTransport({ kubeconfig: files.kubeconfig }), { qps: 0, burst: 0, userAgent: "e2e" });
  createMachines(cloud.state, NODES);
  const kubelets = startKubelets({ client, cloud: cloud.state, logger: quiet, signal: stopAll.signal });
  kubeletsDone = kubelets.done;
  await kubelets.registered;
}, 300_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  stopAll.abort();
  await kubeletsDone;
  await cloud?.stop();
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const nodes = async () => (await client.list<Node>(Resources.nodes)).items;
const initialised = (n: Node) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
const hasCloudAddresses = (n: Node) => (n.status?.addresses ?? []).some((a) => a.type === "InternalIP");

test("addresses whose patch failed during initialisation land within seconds once the API recovers", async () => {
  // Every status patch fails: the manager can initialise nodes (an update) but not write their addresses.
  api.faults.failRate(1, { status: 503, message: "etcd is unavailable" }, { method: "PATCH", path: /\/status$/ });
  manager = spawnCollecting(await managerCommand(files, ["--controllers=cloud-node"]));
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
