/**
 * Leader fencing end to end: two compiled managers with `--leader-elect=true` and short timings against the
 * sandbox, load-balancer work for both, and the simulated cloud's write log (docs/sandbox.md) attributing each write
 * to a manager by its User-Agent (`… pid <pid>`); in the pause test each manager's Kubernetes requests also go
 * through a recording proxy of its own (support/api-proxy.ts).
 *
 * - A leader paused (SIGSTOP) right after a renewal and past its lease, with cloud writes in flight and more Services
 *   than workers queued, then resumed (SIGCONT): its term is ended by the synchronous check of its first write (the
 *   renew deadline on the wall clock), every write it had in hand is refused, it sends no cloud or Kubernetes write
 *   from the standby's acquire time on, and it exits 1 naming why. (test/leader-fencing-metal.e2e.test.ts does the
 *   same with `metal` and checks that no address is ever held by two Services.)
 * - On SIGTERM the leader's writes in flight land before the lease is released: the standby's first cloud write
 *   arrives after the old leader's last one was answered.
 *
 * Figures (writes in hand, how many each made, the handover time) are printed, not asserted. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Lease, Service } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { lbService } from "./scenarios/services.ts";
import { type ApiProxy, startApiProxy, writeProxiedConfig } from "./support/api-proxy.ts";
import { poll, type RunningProcess, spawnManager } from "./support/processes.ts";
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
/** The pause test's Service syncs at once, and its Services: several times more, so work is queued. */
const PAUSE_WORKERS = 4;
const PAUSE_SERVICES = 12;

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
  const proxies: ApiProxy[] = [];
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
  /** As `electTwo`, each manager's Kubernetes requests recorded by a proxy of its own: [[leader, its proxy], …]. */
  const electTwoViaProxies = async (
    extra: string[],
  ): Promise<[[RunningProcess, ApiProxy], [RunningProcess, ApiProxy]]> => {
    const server = loadTransport({ kubeconfig: sandbox.kubeconfig }).server;
    const start = async (n: number): Promise<[RunningProcess, ApiProxy]> => {
      const proxy = startApiProxy(server);
      proxies.push(proxy);
      const kubeconfig = join(sandbox.dir, `kubeconfig-proxied-${n}`);
      await writeProxiedConfig(sandbox.kubeconfig, kubeconfig, server, proxy);
      const p = await spawnManager({ kubeconfig, cloudConfig: sandbox.cloudConfig }, [...LE_FLAGS, ...extra]);
      started.push(p);
      return [p, proxy];
    };
    const a = await start(1);
    const b = await start(2);
    const outputs = () => `${a[0].output()}\n---\n${b[0].output()}`;
    await poll(async () => (await holder()) !== "" && [a, b].some(([p]) => p.output().includes("became leader")), {
      timeoutMs: 60_000,
      message: `a leader; outputs:\n${outputs()}`,
    });
    const [leader, standby] = a[0].output().includes("became leader") ? [a, b] : [b, a];
    const id = await holder();
    await poll(() => standby[0].output().includes(`new leader elected: ${id}`), {
      timeoutMs: 30_000,
      message: `the standby to see ${id}:\n${standby[0].output()}`,
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
    await Promise.all(proxies.splice(0).map((p) => p.stop()));
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  test("a leader resumed after a pause past its lease, with cloud writes in hand, has its term ended by its first write's check: no cloud or Kubernetes write once the standby holds the lease, and it exits 1 naming why", async () => {
    await sandbox.cloud.setFaults({ latencyMs: CLOUD_LATENCY_MS });
    await sandbox.cloud.call("DELETE", "/v1/calls");
    // Each manager's Kubernetes requests go through a recording proxy of its own; more Services than workers, and
    // a rate-limited Kubernetes client, keep work in hand: writes in flight and queued when the leader is paused.
    const busy = [`--concurrent-service-syncs=${PAUSE_WORKERS}`, "--kube-api-qps=4", "--kube-api-burst=1", "--v=4"];
    const [[leader, leaderKube], [standby, standbyKube]] = await electTwoViaProxies(busy);
    const leaderId = await holder();
    await createServices("paused", PAUSE_SERVICES);
    await poll(async () => (await writes()).filter(byPid(leader.proc.pid)).length >= 2, {
      timeoutMs: 30_000,
      message: `the leader's first cloud writes:\n${leader.output()}`,
    });
    // Right after a renewal: the renew loop's next turn is due after the queued writes', so a write runs first.
    const renewals = () => leaderKube.writes().filter((w) => w.path.includes("/leases/") && w.status === 200).length;
    const renewed = renewals();
    await poll(() => renewals() > renewed, { timeoutMs: 10_000, everyMs: 5, message: "the leader's next renewal" });
    leader.proc.kill("SIGSTOP");
    const pausedAt = Date.now();
    await poll(async () => (await holder()) !== leaderId, { timeoutMs: 30_000, message: "the standby to take over" });
    const took = await lease();
    const heldSince = Date.parse(took?.spec?.acquireTime ?? "");
    expect(Number.isFinite(heldSince)).toBeTrue();
    // Let the new leader write for a while, so both want the same load balancers when the old one wakes.
    await poll(async () => (await writes()).some((w) => byPid(standby.proc.pid)(w) && w.receivedAt >= heldSince), {
      timeoutMs: 30_000,
      message: `the new leader's first cloud write:\n${standby.output()}`,
    });
    const resumeOutputFrom = leader.output().length;
    leader.proc.kill("SIGCONT");
    const resumedAt = Date.now();
    const code = await leader.exited;
    const log = await writes();
    const mine = log.filter(byPid(leader.proc.pid));
    const late = mine.filter((w) => w.receivedAt >= heldSince);
    const lateKube = leaderKube.writes().filter((w) => w.receivedAt >= heldSince);
    const inFlightAtPause = mine.filter((w) => w.receivedAt < pausedAt && w.answeredAt > pausedAt).length;
    const after = leader.output().slice(resumeOutputFrom);
    const refused = after.match(/ refused: /g)?.length ?? 0;
    const ended = /leadership lost: [^\n]*/.exec(after)?.[0] ?? /failed to renew lease[^\n]*/.exec(after)?.[0] ?? "?";
    console.log(
      `pause: paused ${resumedAt - pausedAt}ms with ${inFlightAtPause} cloud writes in flight; the old leader made ` +
        `${mine.length} cloud and ${leaderKube.writes().length} Kubernetes writes, ${late.length} and ${lateKube.length} ` +
        `of them after the standby took the lease; ${refused} writes refused by the fence after SIGCONT; the new ` +
        `leader made ${log.filter(byPid(standby.proc.pid)).length} cloud and ${standbyKube.writes().length} Kubernetes ` +
        `writes; the term ended with "${ended}"`,
    );
    expect(late).toEqual([]);
    expect(lateKube.map((w) => `${w.method} ${w.path}`)).toEqual([]);
    expect(code).toBe(1);
    // Ended by the synchronous check at the first write after SIGCONT (the renew deadline on the wall clock), not by
    // the renew loop's overdue turn; more than one write was in hand and refused.
    expect(ended).toMatch(/^leadership lost: not renewed for [\d.]+s, past the renew deadline of 3s/);
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(after).toContain("exiting: leaderelection lost");
    await poll(async () => (await sandbox.cloud.loadBalancers()).length === PAUSE_SERVICES, {
      timeoutMs: 60_000,
      message: `all ${PAUSE_SERVICES} load balancers from the new leader:\n${standby.output().slice(-3000)}`,
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
