import { describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../kube/client-types.ts";
import type { Lease } from "../kube/objects.ts";
import { FakeClock } from "../kube/testdata/fake-clock.ts";
import {
  type LeaderElection,
  runLeaderElection,
  type StopReason,
  validateLeaderElectionTimings,
} from "./leader-election.ts";
import { type LeaderElectionMetrics, leaderElectionMetrics } from "./leader-election-metrics.ts";
import { createMetricsRegistry } from "./metrics.ts";
import { EmulatorKubeClient } from "./testing/emulator-client.ts";
import { captureLogger } from "./testing/logger.ts";

interface Candidate {
  readonly election: LeaderElection;
  readonly cancel: AbortController;
  readonly events: string[];
  leadingSignal: AbortSignal | undefined;
  over: (() => string | undefined) | undefined;
}

const setup = () => {
  const clock = new FakeClock();
  const client = new EmulatorKubeClient({ now: clock.now });
  const start = (
    id: string,
    overrides: {
      releaseOnCancel?: boolean;
      logger?: ReturnType<typeof captureLogger>["logger"];
      metrics?: LeaderElectionMetrics;
    } = {},
  ): Candidate => {
    const cancel = new AbortController();
    const events: string[] = [];
    const candidate: Candidate = {
      cancel,
      events,
      leadingSignal: undefined,
      over: undefined,
      election: runLeaderElection({
        client,
        identity: id,
        now: clock.now,
        sleep: clock.sleep,
        random: () => 0,
        logger: captureLogger().logger,
        signal: cancel.signal,
        onStartedLeading: (signal, over) => {
          candidate.leadingSignal = signal;
          candidate.over = over;
          events.push(`started@${elapsed()}`);
        },
        onStoppedLeading: (reason: StopReason) => events.push(`stopped:${reason}@${elapsed()}`),
        onNewLeader: (leader) => events.push(`leader:${leader}`),
        ...overrides,
      }),
    };
    return candidate;
  };
  const t0 = clock.now();
  const elapsed = () => clock.now() - t0;
  const lease = () => client.peek<Lease>(Resources.leases, "cloud-controller-manager", "kube-system");
  return { clock, client, start, elapsed, lease };
};

describe("leader election", () => {
  test("logs the first failure to read the lease with its cause, then at most once per back-off step", async () => {
    const { clock, client, start } = setup();
    const refused = new KubeApiError("GET https://10.0.0.1:6443/apis/…: ECONNREFUSED: connection refused", {
      status: 0,
      reason: "TransportFailed",
    });
    client.fail({ method: "get", resource: "leases" }, refused);
    const { logger, logs } = captureLogger();
    start("a", { logger });
    await clock.advance(60_000); // a retry every 2 s
    const errors = logs.filter((l) => l.type === "error").map((l) => l.message);
    expect(errors[0]).toBe(`error retrieving resource lock kube-system/cloud-controller-manager: ${refused.message}`);
    // At 0, 2, 4, 8, 16 and 32 s: the back-off step doubles from 1 s.
    expect(errors).toHaveLength(6);
    expect(errors[5]).toEndWith("(7 more failures since the last line)");
  });

  test("of two candidates exactly one leads, and it keeps renewing", async () => {
    const { clock, start, lease } = setup();
    const a = start("a");
    await clock.advance(0);
    const b = start("b");
    for (let i = 0; i < 10; i++) {
      await clock.advance(2000);
      expect([a.election.isLeader(), b.election.isLeader()]).toEqual([true, false]);
    }
    expect(lease()?.spec?.holderIdentity).toBe("a");
    expect(lease()?.spec?.leaseTransitions).toBe(0);
    expect(lease()?.spec?.leaseDurationSeconds).toBe(15);
    expect(lease()?.spec?.renewTime).toBe("2026-01-01T00:00:20.000000Z");
    expect(lease()?.spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    expect(b.election.leader()).toBe("a");
    expect(a.events).toEqual(["leader:a", "started@0"]);
    expect(b.events).toEqual(["leader:a"]);
  });

  test("a standby takes over once the lease expired by its own observation, incrementing transitions", async () => {
    const { clock, start, lease, elapsed } = setup();
    const a = start("a");
    await clock.advance(0);
    const b = start("b");
    await clock.advance(4000);
    a.cancel.abort(); // dies without releasing: last renewal at 4s
    await clock.advance(0);
    expect(a.events.at(-1)).toBe("stopped:cancelled@4000");
    while (!b.election.isLeader()) {
      await clock.advanceToNext();
      expect(elapsed()).toBeLessThanOrEqual(4000 + 15_000 + 2000);
    }
    expect(elapsed()).toBeGreaterThanOrEqual(4000 + 15_000);
    expect(lease()?.spec?.holderIdentity).toBe("b");
    expect(lease()?.spec?.leaseTransitions).toBe(1);
    expect(lease()?.spec?.acquireTime).toBe(lease()?.spec?.renewTime as string);
  });

  test("release hands the lease back and the standby takes over on its next retry", async () => {
    const { clock, start, lease } = setup();
    const a = start("a");
    await clock.advance(0);
    const b = start("b");
    await clock.advance(3000);
    await a.election.release();
    expect(a.events.at(-1)).toBe("stopped:released@3000");
    expect(a.leadingSignal?.aborted).toBeTrue();
    expect(lease()?.spec?.holderIdentity).toBe("");
    expect(lease()?.spec?.leaseDurationSeconds).toBe(1);
    await clock.advance(2000);
    expect(b.election.isLeader()).toBeTrue();
    expect(lease()?.spec?.holderIdentity).toBe("b");
    expect(lease()?.spec?.leaseTransitions).toBe(1);
    expect(lease()?.spec?.leaseDurationSeconds).toBe(15);
  });

  test("a standby watching the lease takes it over as soon as it is released, without waiting for its retry", async () => {
    const { clock, start, lease } = setup();
    const a = start("a");
    await clock.advance(0);
    const b = start("b");
    await clock.advance(2500); // b has looked once, found a holding, and sleeps until 4000 + jitter
    await a.election.release();
    for (let i = 0; i < 50 && !b.election.isLeader(); i++) await clock.advance(0);
    expect(b.election.isLeader()).toBeTrue();
    expect(lease()?.spec?.holderIdentity).toBe("b");
    expect(b.events).toContain("started@2500");
  });

  test("a leader whose renewals fail stops leading within the renew deadline, before its lease expires", async () => {
    const { clock, client, start, elapsed } = setup();
    const a = start("a");
    await clock.advance(2000); // renewed at 2s
    client.fail(
      { method: "update", resource: "leases" },
      new KubeApiError("etcd down", { status: 500, reason: "InternalError" }),
    );
    while (a.election.isLeader()) await clock.advanceToNext();
    expect(a.events.at(-1)).toBe(`stopped:lost@${elapsed()}`);
    expect(elapsed()).toBeLessThanOrEqual(2000 + 2000 + 10_000);
    expect(elapsed()).toBeLessThan(2000 + 15_000);
    expect(a.leadingSignal?.aborted).toBeTrue();
    await a.election.done;
  });

  test("a read that shows another holder ends leadership at once, and the Lease is left to that holder", async () => {
    const { clock, client, start, elapsed, lease } = setup();
    const a = start("a");
    await clock.advance(0);
    const current = lease();
    if (!current) throw new Error("no lease");
    const spec = { ...current.spec, holderIdentity: "x", leaseDurationSeconds: 3600 };
    await client.update<Lease>(Resources.leases, { ...current, spec }, { namespace: "kube-system" });
    await clock.advance(2000); // the next renewal round reads the Lease
    expect(a.events).toContain("stopped:lost@2000");
    expect(elapsed()).toBe(2000);
    expect(a.over?.()).toBe("the lease is held by x");
    await a.election.done;
    expect(lease()?.spec?.holderIdentity).toBe("x");
  });

  test("a term's write check ends leadership on the wall clock once the renew deadline has passed since the last renewal, with no timer run (a resumed pause)", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const events: string[] = [];
    let over: (() => string | undefined) | undefined;
    let leading: AbortSignal | undefined;
    const election = runLeaderElection({
      client: new EmulatorKubeClient(),
      identity: "a",
      now: () => now,
      sleep: () => new Promise(() => {}), // paused: no timer of the election ever fires
      logger: captureLogger().logger,
      signal: new AbortController().signal,
      onStartedLeading: (signal, check) => {
        leading = signal;
        over = check;
      },
      onStoppedLeading: (reason) => events.push(reason),
    });
    while (!over) await new Promise((r) => setImmediate(r));
    now += 10_000;
    expect(over()).toBeUndefined();
    expect(election.isLeader()).toBeTrue();
    now += 11_000;
    expect(over()).toBe("not renewed for 21.0s, past the renew deadline of 10s (was the process paused?)");
    expect(election.isLeader()).toBeFalse();
    expect(leading?.aborted).toBeTrue();
    expect(events).toEqual(["lost"]);
  });

  test("a hanging renewal request counts as failed at the deadline", async () => {
    const { clock, client, start, elapsed } = setup();
    const a = start("a");
    await clock.advance(0);
    // Both renewal paths hang: the optimistic write and the read behind it.
    client.react({ method: "update", resource: "leases" }, () => new Promise(() => {}));
    client.react({ method: "get", resource: "leases" }, () => new Promise(() => {}));
    while (a.election.isLeader()) await clock.advanceToNext();
    expect(a.events.at(-1)).toBe(`stopped:lost@${elapsed()}`);
    expect(elapsed()).toBeLessThanOrEqual(2000 + 10_000);
  });

  test("releaseOnCancel releases on abort", async () => {
    const { clock, start, lease } = setup();
    const a = start("a", { releaseOnCancel: true });
    await clock.advance(0);
    a.cancel.abort();
    await a.election.done;
    await clock.advance(0);
    expect(a.events.at(-1)).toBe("stopped:released@0");
    expect(lease()?.spec?.holderIdentity).toBe("");
  });

  test("healthz check fails for a leader whose renew loop is stuck past lease duration + 20s", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const client = new EmulatorKubeClient();
    const election = runLeaderElection({
      client,
      identity: "a",
      now: () => now,
      sleep: () => new Promise(() => {}), // the loop never wakes again
      logger: captureLogger().logger,
      signal: new AbortController().signal,
      onStartedLeading: () => {},
      onStoppedLeading: () => {},
    });
    while (!election.isLeader()) await new Promise((r) => setImmediate(r));
    now += 35_000;
    expect(election.healthy()).toBeTrue();
    now += 1;
    expect(election.healthy()).toBeFalse();
  });

  test("rejects inconsistent timings with upstream's messages", () => {
    expect(validateLeaderElectionTimings(15_000, 10_000, 2_000)).toEqual([]);
    expect(validateLeaderElectionTimings(10_000, 10_000, 9_000)).toEqual([
      "leaseDuration must be greater than renewDeadline",
      "renewDeadline must be greater than retryPeriod*JitterFactor",
    ]);
  });
});

describe("leader-election metrics", () => {
  const metricsSetup = () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const base = setup();
    const value = async (metric: string) =>
      (await registry.getSingleMetric(metric)?.get())?.values.find((v) => v.labels.name === "cloud-controller-manager")
        ?.value;
    const start = (id: string) => base.start(id, { metrics: leaderElectionMetrics(registry) });
    return { ...base, start, value };
  };

  test("master status is 0 standing by, 1 leading, 0 again once released", async () => {
    const { clock, start, value } = metricsSetup();
    const a = start("a");
    const b = start("b");
    await clock.advance(0);
    expect(a.election.isLeader()).toBeTrue();
    expect(await value("leader_election_master_status")).toBe(1);
    await a.election.release();
    expect(await value("leader_election_master_status")).toBe(0);
    b.cancel.abort();
    await b.election.done;
  });

  test("the leader renews without reading the Lease, and counts a slow path when its optimistic write fails", async () => {
    const { clock, client, start, value, lease } = metricsSetup();
    const a = start("a");
    await clock.advance(0);
    client.clearRequests();
    await clock.advance(2000);
    expect(client.requestsMatching({ method: "get", resource: "leases" })).toEqual([]);
    expect(client.writes({ resource: "leases" })).toHaveLength(1);
    expect((await value("leader_election_slowpath_total")) ?? 0).toBe(0);
    // Another writer touches the Lease (same holder): the leader's write of the record it saw conflicts.
    const current = lease();
    if (!current) throw new Error("no lease");
    await client.update(
      Resources.leases,
      { ...current, metadata: { ...current.metadata, annotations: { touched: "yes" } } },
      { namespace: "kube-system" },
    );
    await clock.advance(2000);
    expect(a.election.isLeader()).toBeTrue();
    expect(await value("leader_election_slowpath_total")).toBe(1);
    a.cancel.abort();
    await a.election.done;
  });
});
