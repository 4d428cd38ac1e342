/**
 * Handover figures, measured with compiled managers on the sandbox and the DEFAULT leader-election
 * timings (lease 15s, renew deadline 10s, retry period 2s), printed and compared with upstream's, never asserted as
 * timings (a busy machine would make them flaky; the behaviour they come from is asserted elsewhere:
 * leader-election.e2e.test.ts, leader-fencing.e2e.test.ts).
 *
 * - `kill -9` of the leader, once: from the SIGKILL to the standby's lease acquire time, and to its first cloud
 *   write (a Service created right after the kill waits for it). Upstream's algorithm gives the standby the lease a
 *   lease duration after it last saw the record change, at its next retry (2s, jittered up to 4.4s): with the
 *   defaults, a median of at most 18s. This is the one end-to-end test that waits out the default lease; every
 *   other leader-election test shortens it with upstream's flags.
 * - SIGTERM of the leader, idle and with a cloud write in flight: from the signal to the standby's acquire time.
 *   The lease is released once the writes in flight are answered, so the second figure includes what remained of
 *   the write; the target is under 1s.
 *
 * Each manager reaches the simulated cloud through a recording proxy of its own (support/api-proxy.ts), so a write is
 * seen the moment it is sent and attributed to its manager.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Resources } from "../kube/client-types.ts";
import type { Lease } from "../kube/objects.ts";
import { lbService } from "./scenarios/services.ts";
import { type ApiProxy, startApiProxy, writeProxiedConfig } from "./support/api-proxy.ts";
import { poll, type RunningProcess, spawnManager } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

/** Default timings: only leader election turned on. */
const FLAGS = ["--leader-elect=true", "--controllers=service,cloud-node"];
const LEASE = { namespace: "kube-system", name: "cloud-controller-manager" };
/** Upstream's figure for a `kill -9` failover with the default timings (median). */
const UPSTREAM_KILL_MEDIAN_MS = 18_000;
const TERM_TARGET_MS = 1_000;
const CLOUD_LATENCY_MS = 500;

interface Manager {
  readonly process: RunningProcess;
  readonly cloud: ApiProxy;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)}s`;

describe("leader handover with the default timings, measured", () => {
  let sandbox: Sandbox;
  let cloudUrl = "";
  const managers: Manager[] = [];
  let leader: Manager | undefined;
  let services = 0;

  beforeAll(async () => {
    sandbox = await startSandbox({ nodes: 2 });
    cloudUrl = sandbox.cloud.url;
  }, 120_000);
  afterAll(async () => {
    for (const m of managers) if (m.process.proc.exitCode === null) m.process.proc.kill("SIGKILL");
    await Promise.all(managers.map((m) => m.process.exited));
    await Promise.all(managers.map((m) => m.cloud.stop()));
    await sandbox?.stop();
  });

  const lease = async () =>
    sandbox.client.get<Lease>(Resources.leases, LEASE.name, { namespace: LEASE.namespace }).catch(() => undefined);
  const holder = async () => (await lease())?.spec?.holderIdentity ?? "";
  /** Resolves with the new holder's acquire time (ms since the epoch) once the Lease names someone but `previous`. */
  const acquiredAfter = async (previous: string): Promise<number> => {
    await poll(async () => !["", previous].includes(await holder()), {
      timeoutMs: 60_000,
      everyMs: 50,
      message: `a new holder after ${previous}`,
    });
    const at = Date.parse((await lease())?.spec?.acquireTime ?? "");
    expect(Number.isFinite(at)).toBeTrue();
    return at;
  };
  const createService = () => sandbox.client.create(Resources.services, lbService(`handover-${services++}`));

  const start = async (): Promise<Manager> => {
    const cloud = startApiProxy(cloudUrl);
    const cloudConfig = join(sandbox.dir, `cloud-proxied-${managers.length}.yaml`);
    await writeProxiedConfig(sandbox.cloudConfig, cloudConfig, cloudUrl, cloud);
    const m = { process: await spawnManager({ kubeconfig: sandbox.kubeconfig, cloudConfig }, FLAGS), cloud };
    managers.push(m);
    return m;
  };
  const leading = async (): Promise<Manager> => {
    if (leader?.process.proc.exitCode === null) return leader;
    const m = await start();
    await poll(() => m.process.output().includes("became leader"), {
      timeoutMs: 60_000,
      message: `the first manager to lead:\n${m.process.output()}`,
    });
    leader = m;
    return m;
  };
  /** A new manager standing by, once it has seen the current leader's record. */
  const standby = async (): Promise<Manager> => {
    const id = await holder();
    const m = await start();
    await poll(() => m.process.output().includes(`new leader elected: ${id}`), {
      timeoutMs: 60_000,
      message: `the standby to see ${id}:\n${m.process.output()}`,
    });
    return m;
  };
  const firstWrite = async (m: Manager): Promise<number> => {
    await poll(() => m.cloud.writes().length > 0, {
      timeoutMs: 60_000,
      message: `the new leader's first cloud write:\n${m.process.output().slice(-3000)}`,
    });
    return m.cloud.writes()[0]!.receivedAt;
  };

  test("kill -9 of the leader: time to the standby's acquire and first cloud write", async () => {
    const old = await leading();
    const next = await standby();
    const id = await holder();
    old.process.proc.kill("SIGKILL");
    const killedAt = Date.now();
    await createService(); // waits for whoever leads next
    const acquired = (await acquiredAfter(id)) - killedAt;
    const written = (await firstWrite(next)) - killedAt;
    expect(await old.process.exited).not.toBe(0);
    leader = next;
    console.log(
      `kill -9 failover, default timings (acquire / first cloud write after the SIGKILL): ${seconds(acquired)} / ` +
        `${seconds(written)} (upstream: median ≤ ${seconds(UPSTREAM_KILL_MEDIAN_MS)}, lease 15s + retry 2s jittered up to 4.4s)`,
    );
  }, 120_000);

  test("SIGTERM of the leader, idle and with a cloud write in flight: time to the standby's acquire", async () => {
    // Idle.
    const idle = await leading();
    const next = await standby();
    let id = await holder();
    const idleAt = Date.now();
    idle.process.proc.kill("SIGTERM");
    const idleMs = (await acquiredAfter(id)) - idleAt;
    expect(await idle.process.exited).toBe(0);
    leader = next;

    // A cloud write in flight: signalled the moment the proxy has passed the write on and no answer has come back.
    await sandbox.cloud.setFaults({ latencyMs: CLOUD_LATENCY_MS });
    try {
      const busy = await leading();
      const after = await standby();
      id = await holder();
      const writesBefore = busy.cloud.writes().length;
      for (let i = 0; i < 3; i++) await createService();
      const inFlight = () =>
        busy.cloud
          .writes()
          .slice(writesBefore)
          .filter((w) => w.answeredAt === 0);
      await poll(() => inFlight().length > 0, {
        timeoutMs: 60_000,
        everyMs: 5,
        message: `a cloud write of the leader in flight:\n${busy.process.output().slice(-3000)}`,
      });
      const busyAt = Date.now();
      const pending = inFlight();
      busy.process.proc.kill("SIGTERM");
      const busyMs = (await acquiredAfter(id)) - busyAt;
      expect(await busy.process.exited).toBe(0);
      leader = after;
      const newFirst = await firstWrite(after);
      const oldLast = Math.max(...busy.cloud.writes().map((w) => w.answeredAt));
      console.log(
        `SIGTERM handover, default timings (signal to the standby's acquire; target < ${seconds(TERM_TARGET_MS)}): ` +
          `idle ${Math.round(idleMs)}ms; with ${pending.length} cloud write(s) in flight (${CLOUD_LATENCY_MS}ms cloud ` +
          `latency, ${pending.map((w) => `${w.method} ${w.path}`).join(", ")}) ${Math.round(busyMs)}ms, of which ` +
          `${Math.max(0, oldLast - busyAt)}ms waiting for the old leader's last answer; the new leader's first ` +
          `cloud write ${newFirst - oldLast}ms after it`,
      );
      // Not a timing: the order the SIGTERM sequence promises.
      expect(newFirst).toBeGreaterThanOrEqual(oldLast);
    } finally {
      await sandbox.cloud.setFaults({});
    }
  }, 180_000);
});
