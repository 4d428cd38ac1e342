/**
 * Issue 16 items 3 and 4 end to end: two compiled managers with `--leader-elect=true` and short timings against the
 * sandbox, load-balancer work for both, and the simulated cloud's write log (docs/sandbox.md) attributing each write
 * to a manager by its User-Agent (`… pid <pid>`).
 *
 * - A leader paused (SIGSTOP) past its lease with cloud writes in flight and work queued, then resumed (SIGCONT),
 *   makes no cloud write once the standby holds the lease: its first write after the pause is refused by its term's
 *   fence, and it exits 1 naming why.
 * - On SIGTERM the leader's writes in flight land before the lease is released: the standby's first cloud write
 *   arrives after the old leader's last one was answered.
 *
 * Figures (how many writes each made, the handover time) are printed, not asserted.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Lease, Service } from "../kube/objects.ts";
import { lbService } from "./scenarios/services.ts";
import { poll, type RunningProcess } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

const LE_FLAGS = [
  "--leader-elect=true",
  "--leader-elect-lease-duration=4s",
  "--leader-elect-renew-deadline=3s",
  "--leader-elect-retry-period=1s",
  "--controllers=service,cloud-node",
];
const LEASE = { namespace: "kube-system", name: "cloud-controller-manager" };
/** Every cloud call takes this long: writes are in flight when the leader is paused or stopped. */
const CLOUD_LATENCY_MS = 400;

interface Write {
  method: string;
  path: string;
  status: number;
  userAgent: string;
  receivedAt: number;
  answeredAt: number;
}

const byPid = (pid: number) => (w: Write) => w.userAgent.endsWith(`pid ${pid})`);

describe("one leader at a time, compiled managers against the sandbox", () => {
  let sandbox: Sandbox;
  const started: RunningProcess[] = [];
  const lease = async () =>
    sandbox.client.get<Lease>(Resources.leases, LEASE.name, { namespace: LEASE.namespace }).catch(() => undefined);
  const holder = async () => (await lease())?.spec?.holderIdentity ?? "";
  const writes = async () => (await sandbox.cloud.call<{ writes: Write[] }>("GET", "/v1/calls/writes")).writes;
  const createServices = async (prefix: string, n: number) => {
    for (let i = 0; i < n; i++) await sandbox.client.create<Service>(Resources.services, lbService(`${prefix}-${i}`));
  };
  /** Starts two managers and resolves with [leader, standby] once one leads and the other has seen it. */
  const electTwo = async (): Promise<[RunningProcess, RunningProcess]> => {
    const a = await sandbox.startManager(LE_FLAGS);
    const b = await sandbox.startManager(LE_FLAGS);
    started.push(a, b);
    await poll(async () => (await holder()) !== "" && [a, b].some((p) => p.output().includes("became leader")), {
      timeoutMs: 60_000,
      message: `a leader; outputs:\n${a.output()}\n---\n${b.output()}`,
    });
    const [leader, standby] = a.output().includes("became leader") ? [a, b] : [b, a];
    const id = await holder();
    await poll(() => standby.output().includes(`new leader elected: ${id}`), {
      timeoutMs: 30_000,
      message: `the standby to see ${id}:\n${standby.output()}`,
    });
    return [leader, standby];
  };
  const stopBoth = async (ps: RunningProcess[]) => {
    for (const p of ps) if (p.proc.exitCode === null) p.proc.kill("SIGKILL");
    await Promise.all(ps.map((p) => p.exited));
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ nodes: 2 });
  }, 120_000);
  afterEach(async () => {
    await stopBoth(started.splice(0));
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  test("a leader resumed after a pause past its lease makes no cloud write once the standby holds the lease, and exits 1 naming why", async () => {
    await sandbox.cloud.setFaults({ latencyMs: CLOUD_LATENCY_MS });
    await sandbox.cloud.call("DELETE", "/v1/calls");
    const [leader, standby] = await electTwo();
    const leaderId = await holder();
    await createServices("paused", 4);
    // Cloud writes under way, then more work queued for the paused leader.
    await poll(async () => (await writes()).some(byPid(leader.proc.pid)), {
      timeoutMs: 30_000,
      message: `the leader's first cloud write:\n${leader.output()}`,
    });
    leader.proc.kill("SIGSTOP");
    const pausedAt = Date.now();
    await createServices("queued", 4);
    await poll(async () => (await holder()) !== leaderId, { timeoutMs: 30_000, message: "the standby to take over" });
    const took = await lease();
    const heldSince = Date.parse(took?.spec?.acquireTime ?? "");
    expect(Number.isFinite(heldSince)).toBeTrue();
    // Let the new leader write for a while, so both want the same load balancers when the old one wakes.
    await poll(async () => (await writes()).some((w) => byPid(standby.proc.pid)(w) && w.receivedAt >= heldSince), {
      timeoutMs: 30_000,
      message: `the new leader's first cloud write:\n${standby.output()}`,
    });
    leader.proc.kill("SIGCONT");
    const resumedAt = Date.now();
    const code = await leader.exited;
    const log = await writes();
    const late = log.filter((w) => byPid(leader.proc.pid)(w) && w.receivedAt >= heldSince);
    const mine = log.filter(byPid(leader.proc.pid));
    console.log(
      `pause: paused ${Math.round(resumedAt - pausedAt)}ms; old leader made ${mine.length} cloud writes, ` +
        `${late.length} after the standby took the lease; the new leader made ${log.filter(byPid(standby.proc.pid)).length}`,
    );
    expect(late).toEqual([]);
    expect(code).toBe(1);
    const out = leader.output();
    // Whichever runs first after SIGCONT — the renew loop's overdue timer or a write's fence check — ends the term.
    expect(out).toMatch(/leadership lost: not renewed for|failed to renew lease/);
    expect(out).toContain("exiting: leaderelection lost");
    await poll(async () => (await sandbox.cloud.loadBalancers()).length === 8, {
      timeoutMs: 60_000,
      message: `all 8 load balancers from the new leader:\n${standby.output()}`,
    });
  }, 180_000);

  test("on SIGTERM the leader's cloud writes in flight are answered before the standby's first write", async () => {
    await sandbox.cloud.setFaults({ latencyMs: 3 * CLOUD_LATENCY_MS });
    const [leader, standby] = await electTwo();
    await sandbox.cloud.call("DELETE", "/v1/calls");
    const leaderId = await holder();
    await createServices("term", 4);
    await poll(async () => (await writes()).some(byPid(leader.proc.pid)), {
      timeoutMs: 30_000,
      message: `the leader at work:\n${leader.output()}`,
    });
    const start = performance.now();
    leader.proc.kill("SIGTERM");
    await poll(async () => (await holder()) !== "" && (await holder()) !== leaderId, {
      timeoutMs: 30_000,
      message: `the standby to take over:\n${leader.output()}`,
    });
    const handoverMs = performance.now() - start;
    expect(await leader.exited).toBe(0);
    await poll(async () => (await writes()).some(byPid(standby.proc.pid)), {
      timeoutMs: 60_000,
      message: `the new leader's first cloud write:\n${standby.output()}`,
    });
    const log = await writes();
    expect(log.filter(byPid(leader.proc.pid)).length).toBeGreaterThan(0);
    const oldLast = Math.max(...log.filter(byPid(leader.proc.pid)).map((w) => w.answeredAt));
    const newFirst = Math.min(...log.filter(byPid(standby.proc.pid)).map((w) => w.receivedAt));
    console.log(
      `SIGTERM with ${3 * CLOUD_LATENCY_MS}ms cloud latency: lease handed over ${Math.round(handoverMs)}ms after the signal; ` +
        `the old leader's last write answered ${newFirst - oldLast}ms before the new leader's first`,
    );
    expect(newFirst).toBeGreaterThanOrEqual(oldLast);
  }, 180_000);
});
