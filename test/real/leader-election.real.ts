/**
 * test/leader-election.e2e.test.ts's core against a real kube-apiserver (1.20.2, test/real/cluster.ts): two
 * compiled managers with `--leader-elect=true` share the Lease kube-system/cloud-controller-manager (a real
 * coordination.k8s.io/v1 Lease, with the server's optimistic concurrency); exactly one leads and initialises the
 * nodes; `kill -9` of it hands over to the standby, and SIGTERM of the new leader releases the Lease to a third.
 * Handover times are printed, and bounded only loosely (the emulator's test bounds them tightly).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isNotFound, Resources } from "../../kube/client-types.ts";
import type { Lease, Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { type RealCluster, START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

const LE_FLAGS = [
  "--leader-elect=true",
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=1s",
];
const LEASE = { namespace: "kube-system", name: "cloud-controller-manager" };

let cluster: RealCluster;
let leader: RunningProcess;
let standby: RunningProcess;

beforeAll(async () => {
  cluster = await startRealCluster({ nodes: 2 });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
});

const holder = async (): Promise<string> => {
  try {
    const lease = await cluster.client.get<Lease>(Resources.leases, LEASE.name, { namespace: LEASE.namespace });
    return lease.spec?.holderIdentity ?? "";
  } catch (err) {
    if (isNotFound(err)) return "";
    throw err;
  }
};

/** Milliseconds from `start` until the Lease names a holder other than `previous`. */
const timeUntilNewHolder = async (previous: string, start: number): Promise<number> => {
  await poll(async () => !["", previous].includes(await holder()), { timeoutMs: 60_000, everyMs: 20 });
  return performance.now() - start;
};

const outputs = () => `leader:\n${leader?.output()}\n---\nstandby:\n${standby?.output()}`;

describe("leader election between compiled managers, against a real API server", () => {
  test("of two managers exactly one leads, and only it initialises nodes", async () => {
    const a = await cluster.startManager(LE_FLAGS);
    const b = await cluster.startManager(LE_FLAGS);
    await poll(async () => (await holder()) !== "" && [a, b].some((p) => p.output().includes("became leader")), {
      timeoutMs: 60_000,
      message: `a leader; outputs:\n${a.output()}\n---\n${b.output()}`,
    });
    [leader, standby] = a.output().includes("became leader") ? [a, b] : [b, a];
    const id = await holder();
    await poll(() => standby.output().includes(`new leader elected: ${id}`), {
      message: `the standby to see ${id}; ${outputs()}`,
    });
    await poll(
      async () =>
        (await cluster.client.list<Node>(Resources.nodes)).items.every(
          (n) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized),
        ),
      { timeoutMs: 60_000, message: `nodes initialised; ${outputs()}` },
    );
    expect(await holder()).toBe(id);
    expect(leader.output()).toContain("node node-1 initialized");
    for (const line of ["became leader", "initialized"]) expect(standby.output()).not.toContain(line);
  });

  test("kill -9 of the leader hands over to the standby", async () => {
    const old = await holder();
    const start = performance.now();
    leader.proc.kill("SIGKILL");
    const ms = await timeUntilNewHolder(old, start);
    console.log(`real API server, kill -9 handover: ${Math.round(ms)}ms (lease 4000ms + retry 1000ms)`);
    expect(ms).toBeLessThanOrEqual(30_000);
    leader = standby;
    await poll(() => leader.output().includes('started "cloud-node-controller"'), {
      message: `the standby to lead and start controllers; ${outputs()}`,
    });
  });

  test("SIGTERM of the leader releases the Lease to a standby, and the leader exits 0", async () => {
    standby = await cluster.startManager(["--leader-elect=true"]);
    const id = await holder();
    await poll(() => standby.output().includes(`new leader elected: ${id}`), {
      message: `the new standby to see ${id}; ${outputs()}`,
    });
    const start = performance.now();
    leader.proc.kill("SIGTERM");
    const ms = await timeUntilNewHolder(id, start);
    console.log(`real API server, SIGTERM handover: ${Math.round(ms)}ms`);
    expect(ms).toBeLessThanOrEqual(15_000);
    expect(await leader.exited).toBe(0);
    await poll(() => standby.output().includes("became leader"), { message: `the standby to lead; ${outputs()}` });
  });
});
