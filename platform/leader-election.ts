/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm:
 *
 * - Acquire when the lease is absent, held by us, has no holder, or has expired. Expiry is judged by OUR clock:
 *   we remember when we last saw the lease record change and add the record's `leaseDurationSeconds` to that,
 *   so skew between machines does not matter.
 * - While leading, renew every retry period. Leadership ends at once (leading signal aborted,
 *   `onStoppedLeading("lost")`) when the renew deadline, counted on the wall clock from the start of the last
 *   successful write of the Lease, passes without a renewal, or when a read shows another holder. With the defaults
 *   (15s/10s/2s) that is before our last renewal expires for anyone else, so two leaders never overlap.
 * - A term's writes ask `over()` synchronously (term-fence.ts), so a process resumed after a pause (SIGSTOP, a
 *   stalled VM) past its deadline ends its term at its first write, before any timer of ours could run.
 * - `release()` writes the lease with an empty holder and a 1s duration, so a standby takes over at its next retry.
 * - Writes use the lease's resourceVersion: a concurrent writer makes ours fail with a conflict, never both win.
 *
 * The election ends after leadership ends (lost, released, or cancelled through `signal`); the command decides
 * whether to exit (upstream exits 1 with `leaderelection lost`).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ConsolaInstance } from "consola";
import { isAlreadyExists, isNotFound, type KubeClient, Resources } from "../kube/client-types.ts";
import type { Now, Sleep } from "../kube/clock.ts";
import type { Lease } from "../kube/objects.ts";
import { createFailureLog } from "./failure-log.ts";
import type { LeaderElectionMetrics } from "./leader-election-metrics.ts";
import { watchLeaseRelease } from "./lease-watch.ts";
import { formatMicroTime } from "./timestamps.ts";

export type StopReason = "lost" | "released" | "cancelled";

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  /** Default `kube-system`. */
  readonly namespace?: string;
  /** Default `cloud-controller-manager`. */
  readonly name?: string;
  /** Unique per process: `leaderIdentity()`. */
  readonly identity: string;
  /** Defaults 15s / 10s / 2s (`--leader-elect-lease-duration`, `-renew-deadline`, `-retry-period`). */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly now: Now;
  readonly sleep: Sleep;
  /** Jitter of the acquire loop (retry period × (1 + random × 1.2)). */
  readonly random?: () => number;
  readonly logger: ConsolaInstance;
  /** Aborting ends the election; a leader steps down with `"cancelled"` (and releases if `releaseOnCancel`). */
  readonly signal: AbortSignal;
  readonly releaseOnCancel?: boolean;
  /**
   * Called once leadership is won; `leadingSignal` aborts when it ends. `over()` says why the term is over, or
   * `undefined` while it holds: synchronous, on `now()`, and it ends the term when the deadline has passed. A
   * rejection is logged.
   */
  readonly onStartedLeading: (leadingSignal: AbortSignal, over: () => string | undefined) => void | Promise<void>;
  /** Called once when leadership ends (only if it was won). */
  readonly onStoppedLeading: (reason: StopReason) => void;
  /** Called when the observed holder changes (ourselves included). */
  readonly onNewLeader?: (identity: string) => void;
  /** `leader_election_*` metrics (leader-election-metrics.ts); absent ⇒ not recorded. */
  readonly metrics?: LeaderElectionMetrics;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** The holder we last observed (`undefined` before the first read or when nobody holds the lease). */
  leader(): string | undefined;
  /** For `/healthz`: false when we lead but have not renewed for lease duration + 20s (a stuck renew loop). */
  healthy(): boolean;
  /** Stops the election; if leading, hands the lease back (empty holder, 1s duration) first. */
  release(): Promise<void>;
  /** Resolves when the election has ended. */
  readonly done: Promise<void>;
}

/** Upstream's healthz tolerance for a leader that stopped renewing. */
export const LEADER_HEALTH_TOLERANCE_MS = 20_000;
const JITTER_FACTOR = 1.2;

/** `<hostname>_<random UUID>`, as upstream. */
export const leaderIdentity = (host: string = hostname()): string => `${host}_${randomUUID()}`;

/** Upstream's validation, with its messages. */
export const validateLeaderElectionTimings = (leaseMs: number, renewMs: number, retryMs: number): string[] => {
  const errors: string[] = [];
  if (leaseMs <= renewMs) errors.push("leaseDuration must be greater than renewDeadline");
  if (renewMs <= JITTER_FACTOR * retryMs) errors.push("renewDeadline must be greater than retryPeriod*JitterFactor");
  if (leaseMs < 1) errors.push("leaseDuration must be greater than zero");
  if (renewMs < 1) errors.push("renewDeadline must be greater than zero");
  if (retryMs < 1) errors.push("retryPeriod must be greater than zero");
  return errors;
};

export const runLeaderElection = (options: LeaderElectionOptions): LeaderElection => {
  const { client, identity, now, sleep, logger, signal } = options;
  const namespace = options.namespace ?? "kube-system";
  const name = options.name ?? "cloud-controller-manager";
  const leaseMs = options.leaseDurationMs ?? 15_000;
  const renewMs = options.renewDeadlineMs ?? 10_000;
  const retryMs = options.retryPeriodMs ?? 2_000;
  const random = options.random ?? Math.random;
  const errors = validateLeaderElectionTimings(leaseMs, renewMs, retryMs);
  if (errors.length > 0) throw new Error(`invalid leader election timings: ${errors.join("; ")}`);
  const desc = `${namespace}/${name}`;
  const ref = Resources.leases;

  // A standby that cannot reach the API server retries every retry period for as long as it runs: the cause is
  // logged at once, then once per back-off step.
  const readFailures = createFailureLog({ what: `error retrieving resource lock ${desc}`, logger, now });

  const loop = new AbortController();
  let lease: Lease | undefined;
  let observedRecord = "";
  let observedAt = 0;
  let observedHolder: string | undefined;
  let leading: AbortController | undefined;
  /** When the last successful write of the Lease (acquire or renew) started. */
  let lastRenewAt = 0;
  let stopped = false;
  /** Why this candidate's leadership was lost, once it was. */
  let lostBecause: string | undefined;

  const observe = (current: Lease, at: number) => {
    lease = current;
    const record = JSON.stringify(current.spec ?? {});
    if (record !== observedRecord) {
      observedRecord = record;
      observedAt = at;
    }
    const holder = current.spec?.holderIdentity || undefined;
    if (holder && holder !== identity && leading) lose(`the lease is held by ${holder}`);
    if (holder !== observedHolder) {
      observedHolder = holder;
      if (holder) {
        if (holder !== identity) logger.info(`new leader elected: ${holder}`);
        options.onNewLeader?.(holder);
      }
    }
  };

  const tryAcquireOrRenew = async (requestSignal: AbortSignal): Promise<boolean> => {
    const at = now();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(leaseMs / 1000),
      acquireTime: formatMicroTime(at),
      renewTime: formatMicroTime(at),
      leaseTransitions: 0,
    };
    // The fast path, as client-go's: the leader writes over the record it last saw, without reading it first. A
    // conflict (someone else wrote the Lease) or any failure falls back to reading it (the slow path).
    const mine = lease;
    if (leading && mine?.spec?.holderIdentity === identity) {
      const fast = { ...mine.spec, renewTime: spec.renewTime, leaseDurationSeconds: spec.leaseDurationSeconds };
      try {
        observe(await client.update<Lease>(ref, { ...mine, spec: fast }, { namespace, signal: requestSignal }), at);
        lastRenewAt = at;
        return true;
      } catch (err) {
        if (requestSignal.aborted) return false;
        logger.error(`Failed to update lock optimistically: ${(err as Error).message}, falling back to slow path`);
      }
    }
    let current: Lease;
    try {
      current = await client.get<Lease>(ref, name, { namespace, signal: requestSignal });
      readFailures.recovered();
    } catch (err) {
      if (!isNotFound(err)) {
        if (!loop.signal.aborted) readFailures.failed(err);
        return false;
      }
      readFailures.recovered();
      try {
        const body: Lease = {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace },
          spec,
        };
        observe(await client.create<Lease>(ref, body, { namespace, signal: requestSignal }), at);
        lastRenewAt = at;
        return true;
      } catch (createErr) {
        // Two candidates starting together both find no Lease; the one that loses the create just stands by.
        const raced = isAlreadyExists(createErr);
        logger[raced ? "info" : "error"](
          `error initially creating leader election record: ${(createErr as Error).message}`,
        );
        return false;
      }
    }
    observe(current, at);
    const old = current.spec ?? {};
    const holder = old.holderIdentity ?? "";
    if (holder !== "" && holder !== identity && observedAt + (old.leaseDurationSeconds ?? 0) * 1000 > at) {
      logger.debug(`lock is held by ${holder} and has not yet expired`);
      return false;
    }
    if (holder === identity) {
      spec.acquireTime = old.acquireTime ?? spec.acquireTime;
      spec.leaseTransitions = old.leaseTransitions ?? 0;
      if (leading) options.metrics?.slowpath(name);
    } else {
      spec.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    try {
      observe(
        await client.update<Lease>(
          ref,
          { ...current, spec: { ...old, ...spec } },
          { namespace, signal: requestSignal },
        ),
        at,
      );
      lastRenewAt = at;
      return true;
    } catch (err) {
      logger.error(`Failed to update lock: ${(err as Error).message}`);
      return false;
    }
  };

  /** The attempt in flight, so `release` does not race a renewal. */
  let inflight: Promise<boolean> | undefined;

  /** One attempt that gives up (and aborts its request) after `ms`. */
  const attemptWithin = async (ms: number): Promise<boolean> => {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    loop.signal.addEventListener("abort", stop, { once: true });
    try {
      const timeout = sleep(ms, attempt.signal).then(() => {
        // The request sees this as its abort reason, so a server that never answers is logged as such.
        if (!attempt.signal.aborted) attempt.abort(new Error(`no answer within ${ms / 1000}s`));
        return false;
      });
      inflight = tryAcquireOrRenew(attempt.signal);
      return await Promise.race([inflight, timeout]);
    } finally {
      attempt.abort();
      loop.signal.removeEventListener("abort", stop);
    }
  };

  const stepDown = (reason: StopReason) => {
    if (!leading || stopped) return;
    stopped = true;
    leading.abort();
    leading = undefined;
    options.metrics?.leading(name, false);
    try {
      options.onStoppedLeading(reason);
    } catch (err) {
      logger.error(`onStoppedLeading failed: ${(err as Error).message}`);
    }
  };

  /** Leadership is gone for good: stop renewing (the Lease is not ours to write) and end the term now. */
  function lose(reason: string): void {
    if (!leading || stopped) return;
    lostBecause = reason;
    logger.error(`leadership lost: ${reason}; stopping before any further write`);
    loop.abort();
    stepDown("lost");
  }

  const over = (): string | undefined => {
    if (leading && !stopped) {
      const since = now() - lastRenewAt;
      if (since <= renewMs) return undefined;
      lose(
        `not renewed for ${(since / 1000).toFixed(1)}s, past the renew deadline of ${renewMs / 1000}s (was the process paused?)`,
      );
    }
    return lostBecause ?? "the leadership term is over";
  };

  const startLeading = () => {
    leading = new AbortController();
    options.metrics?.leading(name, true);
    logger.info(`successfully acquired lease ${desc}`);
    const leadingSignal = leading.signal;
    Promise.resolve()
      .then(() => options.onStartedLeading(leadingSignal, over))
      .catch((err: unknown) => logger.error(`onStartedLeading failed: ${(err as Error).message}`));
  };

  /** Renews until a round fails to succeed within the renew deadline (false) or the loop is aborted (true). */
  const renewWhileLeading = async (): Promise<boolean> => {
    for (;;) {
      await sleep(retryMs, loop.signal);
      if (loop.signal.aborted) return true;
      // The deadline counts from the last renewal, not from this round: after a pause it has already passed.
      const roundEnd = lastRenewAt + renewMs;
      let renewed = false;
      while (!renewed && !loop.signal.aborted && now() < roundEnd) {
        renewed = await attemptWithin(roundEnd - now());
        if (!renewed && now() < roundEnd) await sleep(Math.min(retryMs, roundEnd - now()), loop.signal);
      }
      if (loop.signal.aborted) return true;
      if (!renewed) return false;
    }
  };

  const run = async () => {
    await Promise.resolve(); // lets the caller's abort wiring below run first
    options.metrics?.leading(name, false);
    logger.info(`attempting to acquire leader lease ${desc}...`);
    const standby = new AbortController();
    let wake = new AbortController();
    const watching = watchLeaseRelease({
      client,
      namespace,
      name,
      resourceVersion: () => lease?.metadata?.resourceVersion,
      onReleased: () => wake.abort(),
      retryMs,
      sleep,
      logger,
      signal: AbortSignal.any([loop.signal, standby.signal]),
    });
    while (!loop.signal.aborted) {
      if (await attemptWithin(renewMs)) break;
      await sleep(retryMs * (1 + random() * JITTER_FACTOR), AbortSignal.any([loop.signal, wake.signal]));
      wake = new AbortController();
    }
    // Stop watching; it ends on its own (it never rejects), and leading must not wait for it.
    standby.abort();
    void watching;
    if (loop.signal.aborted) return;
    startLeading();
    if (!(await renewWhileLeading())) {
      logger.info(`failed to renew lease ${desc}: timed out waiting for the condition`);
      lostBecause = `failed to renew lease ${desc} within the renew deadline of ${renewMs / 1000}s`;
      stepDown("lost");
    }
  };

  let releasing: Promise<void> | undefined;
  const release = (): Promise<void> => {
    releasing ??= (async () => {
      loop.abort();
      await done;
      // A renewal still in flight (its request ignored the abort) must not land after the release.
      if (inflight) await Promise.race([inflight, sleep(renewMs)]);
      if (!leading || !lease) return;
      const at = formatMicroTime(now());
      const spec = { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: at, acquireTime: at };
      try {
        lease = await client.update<Lease>(ref, { ...lease, spec }, { namespace });
        logger.info(`successfully released lease ${desc}`);
      } catch (err) {
        logger.error(`Failed to release lock: ${(err as Error).message}`);
      }
      stepDown("released");
    })();
    return releasing;
  };

  const done: Promise<void> = run()
    .catch((err: unknown) => logger.error(`leader election failed: ${(err as Error).message}`))
    .finally(() => {
      signal.removeEventListener("abort", onCancel);
      if (!releasing) stepDown("cancelled");
    });

  const onCancel = () => {
    if (options.releaseOnCancel) void release();
    else loop.abort();
  };
  if (signal.aborted) onCancel();
  else signal.addEventListener("abort", onCancel, { once: true });

  return {
    isLeader: () => leading !== undefined,
    leader: () => observedHolder,
    healthy: () => leading === undefined || now() - lastRenewAt <= leaseMs + LEADER_HEALTH_TOLERANCE_MS,
    release,
    done,
  };
};
