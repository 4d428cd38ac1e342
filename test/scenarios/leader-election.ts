/**
 * Leader election's scenarios: compiled managers with `--leader-elect=true` on a cluster of two nodes share the
 * Lease kube-system/cloud-controller-manager. Two managers elect exactly one leader, which alone initialises the
 * nodes; `kill -9` of it hands over to the standby; a third manager joins as standby with the default timings and
 * a SIGTERM of the leader releases the Lease to it. The tests run in order on one cluster.
 *
 * Handover times are measured from the signal to the Lease naming a new holder, printed, and checked against the
 * tier's bounds (the emulator's tier explains its tight ones; a real server's are loose).
 */
import { expect, test } from "bun:test";
import { isNotFound, Resources } from "../../kube/client-types.ts";
import type { Lease, Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import type { TestCluster } from "../support/cluster.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { describeOnTier, type ScenarioTier } from "./tier.ts";

export const LEASE_MS = 4_000;
export const RENEW_MS = 3_000;
export const RETRY_MS = 1_000;
const LE_FLAGS = [
  "--leader-elect=true",
  `--leader-elect-lease-duration=${LEASE_MS / 1000}s`,
  `--leader-elect-renew-deadline=${RENEW_MS / 1000}s`,
  `--leader-elect-retry-period=${RETRY_MS / 1000}s`,
];
export const LEASE = { namespace: "kube-system", name: "cloud-controller-manager" };

export interface LeaderElectionTier extends ScenarioTier<LeaderElectionRun> {
  /** Longest handovers the tier accepts, in milliseconds: after `kill -9`, and after SIGTERM (default timings). */
  readonly boundsMs: { readonly kill: number; readonly term: number };
  /** Put before the printed handover times (which server they were measured on). */
  readonly logPrefix: string;
}

/** The scenarios' cluster and the current leader and standby, as the tests move leadership around. */
export class LeaderElectionRun {
  cluster!: TestCluster;
  leader!: RunningProcess;
  standby!: RunningProcess;

  async readLease(): Promise<Lease | undefined> {
    try {
      return await this.cluster.client.get<Lease>(Resources.leases, LEASE.name, { namespace: LEASE.namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async holder(): Promise<string> {
    return (await this.readLease())?.spec?.holderIdentity ?? "";
  }

  /** Milliseconds from `start` until the Lease names a holder other than `previous` (polled every 20ms). */
  async timeUntilNewHolder(previous: string, start: number, timeoutMs = 60_000): Promise<number> {
    for (;;) {
      const now = await this.holder();
      const elapsed = performance.now() - start;
      if (now !== "" && now !== previous) return elapsed;
      if (elapsed > timeoutMs) throw new Error(`no new holder within ${timeoutMs}ms (still "${now}")`);
      await Bun.sleep(20);
    }
  }

  outputs(): string {
    return `leader:\n${this.leader?.output()}\n---\nstandby:\n${this.standby?.output()}`;
  }
}

export const exitWithin = async (p: RunningProcess, ms: number): Promise<number | "still running"> =>
  Promise.race([p.exited, Bun.sleep(ms).then(() => "still running" as const)]);

export function describeLeaderElectionScenarios(tier: LeaderElectionTier): void {
  describeOnTier(tier, new LeaderElectionRun(), { nodes: 2 }, (run) => sharedScenarios(run, tier));
}

function sharedScenarios(run: LeaderElectionRun, tier: LeaderElectionTier): void {
  test("of two managers exactly one leads, and only it initialises nodes", async () => {
    const a = await run.cluster.startManager(LE_FLAGS);
    const b = await run.cluster.startManager(LE_FLAGS);
    await poll(async () => (await run.holder()) !== "" && [a, b].some((p) => p.output().includes("became leader")), {
      timeoutMs: 60_000,
      message: `a leader; outputs:\n${a.output()}\n---\n${b.output()}`,
    });
    [run.leader, run.standby] = a.output().includes("became leader") ? [a, b] : [b, a];
    const { leader, standby } = run;
    const id = await run.holder();
    await poll(() => standby.output().includes(`new leader elected: ${id}`), {
      timeoutMs: 30_000,
      message: `the standby to see ${id}; ${run.outputs()}`,
    });
    await poll(
      async () => {
        const nodes = (await run.cluster.client.list<Node>(Resources.nodes)).items;
        return (
          nodes.length === 2 && nodes.every((n) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized))
        );
      },
      { timeoutMs: 60_000, message: `nodes initialised; ${run.outputs()}` },
    );
    await Bun.sleep(3 * RETRY_MS); // a negative check: the standby must keep standing by for several retries
    expect(await run.holder()).toBe(id);
    expect(leader.output()).toContain("node node-1 initialized");
    expect(leader.output()).toContain("node node-2 initialized");
    for (const line of ["became leader", 'started "', "initialized"]) expect(standby.output()).not.toContain(line);
    // The leader never observed another holder (a candidate logs "new leader elected" only for others).
    const seen = new Set([...leader.output().matchAll(/new leader elected: (\S+)/g)].map((m) => m[1]));
    expect([...seen]).toEqual([]);
  }, 150_000);

  test(`kill -9 of the leader hands over to the standby within ${tier.boundsMs.kill / 1000}s`, async () => {
    const old = await run.holder();
    const start = performance.now();
    run.leader.proc.kill("SIGKILL");
    const ms = await run.timeUntilNewHolder(old, start);
    console.log(
      `${tier.logPrefix}kill -9 handover: ${Math.round(ms)}ms (lease ${LEASE_MS}ms + retry ${RETRY_MS}ms = ${LEASE_MS + RETRY_MS}ms; bound ${tier.boundsMs.kill}ms)`,
    );
    expect(ms).toBeLessThanOrEqual(tier.boundsMs.kill);
    run.leader = run.standby;
    await poll(() => run.leader.output().includes('started "cloud-node-controller"'), {
      timeoutMs: 30_000,
      message: `the standby to lead and start controllers; ${run.outputs()}`,
    });
  }, 90_000);

  test(`SIGTERM of the leader releases the Lease: a standby with default timings leads within ${tier.boundsMs.term / 1000}s, and the leader exits 0`, async () => {
    const standby = await run.cluster.startManager(["--leader-elect=true"]);
    run.standby = standby;
    const { leader } = run;
    const id = await run.holder();
    await poll(() => standby.output().includes(`new leader elected: ${id}`), {
      timeoutMs: 30_000,
      message: `the new standby to see ${id}; ${run.outputs()}`,
    });
    const start = performance.now();
    const exitedAfter = leader.exited.then(() => performance.now() - start);
    leader.proc.kill("SIGTERM");
    const ms = await run.timeUntilNewHolder(id, start);
    console.log(`${tier.logPrefix}SIGTERM handover: ${Math.round(ms)}ms (bound ${tier.boundsMs.term}ms)`);
    expect(ms).toBeLessThanOrEqual(tier.boundsMs.term);
    const code = await exitWithin(leader, 30_000);
    console.log(`SIGTERMed leader exited ${code} ${Math.round(await exitedAfter)}ms after the signal`);
    expect(code).toBe(0);
    expect(leader.output()).toContain("successfully released lease kube-system/cloud-controller-manager");
    await poll(() => standby.output().includes("became leader"), {
      timeoutMs: 30_000,
      message: `the standby to lead; ${run.outputs()}`,
    });
    run.leader = standby;
  }, 90_000);
}
