import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { createKubeClient } from "../kube/client.ts";
import { isNotFound, type KubeClient, Resources } from "../kube/client-types.ts";
import type { Lease, Node } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { type ApiServer, startApiServer } from "./apiserver/server.ts";
import { createMachines } from "./cloud/fixtures.ts";
import { seededRandom } from "./cloud/random.ts";
import { CloudState } from "./cloud/state.ts";
import type { Machine } from "./cloud/types.ts";
import { type Kubelets, startKubelets } from "./kubelets.ts";
import { NODE_LEASE_NAMESPACE } from "./node-leases.ts";

setDefaultTimeout(60_000);

const T0 = Date.parse("2026-05-01T10:00:00Z");

let clock: number;
let dir: string;
let api: ApiServer;
let client: KubeClient;
let cloud: CloudState;
let machine: Machine;
let stop: AbortController;
let kubelets: Kubelets;

beforeEach(async () => {
  clock = T0;
  dir = await mkdtemp(join(tmpdir(), "node-leases-"));
  api = await startApiServer({ bookmarkIntervalMs: 0 });
  client = createKubeClient(loadTransport({ kubeconfig: await api.writeKubeconfig(join(dir, "kubeconfig")) }), {
    qps: 0,
    burst: 0,
    userAgent: "test",
  });
  cloud = new CloudState({ random: seededRandom(1), now: () => new Date(clock) });
  [machine] = createMachines(cloud, 1) as [Machine];
  stop = new AbortController();
  kubelets = startKubelets({
    client,
    cloud,
    logger: createConsola({ level: -999 }),
    pollMs: 5,
    now: () => new Date(clock),
    signal: stop.signal,
  });
  await kubelets.registered;
});

afterEach(async () => {
  stop.abort();
  await kubelets.done;
  await api.stop();
  await rm(dir, { recursive: true, force: true });
});

const lease = (): Promise<Lease> =>
  client.get<Lease>(Resources.leases, machine.name, { namespace: NODE_LEASE_NAMESPACE });

/** Polls `check` until it holds; fails after a generous deadline with what it last saw. */
const eventually = async (what: string, check: () => Promise<boolean>): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("the sandbox kubelets' node Leases", () => {
  test("a registered node has a Lease in kube-node-lease, held by it and owned by its Node, lasting 40 s", async () => {
    const node = await client.get(Resources.nodes, machine.name);
    const l = await lease();
    expect(l.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "Node", name: machine.name, uid: node.metadata?.uid ?? "" },
    ]);
    expect(l.spec).toEqual({
      holderIdentity: machine.name,
      leaseDurationSeconds: 40,
      renewTime: "2026-05-01T10:00:00.000000Z",
    });
  });

  test("a running node's Lease is renewed once a quarter of its duration has passed", async () => {
    clock = T0 + 10_000;
    await eventually(
      "the Lease is renewed",
      async () => (await lease()).spec?.renewTime === "2026-05-01T10:00:10.000000Z",
    );
  });

  test("a stopped machine's Lease stops moving while its node turns NotReady", async () => {
    cloud.updateMachine(machine.id, { state: "stopped" });
    clock = T0 + 10_000;
    await eventually("the node is Ready=Unknown", async () => {
      const node = await client.get<Node>(Resources.nodes, machine.name);
      return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "Unknown") === true;
    });
    expect((await lease()).spec?.renewTime).toBe("2026-05-01T10:00:00.000000Z");
  });

  test("a kubelet started again over an existing Lease renews it", async () => {
    stop.abort();
    await kubelets.done;
    clock = T0 + 60_000;
    stop = new AbortController();
    kubelets = startKubelets({
      client,
      cloud,
      logger: createConsola({ level: -999 }),
      now: () => new Date(clock),
      signal: stop.signal,
    });
    await kubelets.registered;
    expect((await lease()).spec?.renewTime).toBe("2026-05-01T10:01:00.000000Z");
  });

  test("a deleted machine's node and Lease go", async () => {
    cloud.deleteMachine(machine.id);
    await client.delete(Resources.nodes, machine.name);
    clock = T0 + 40_000;
    await eventually("the Lease is deleted", async () => {
      try {
        await lease();
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    });
  });
});
