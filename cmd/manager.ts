/**
 * The manager (upstream: app/controllermanager.go `Run`): Kubernetes client, metrics, health, serving, leader election,
 * and the controllers, started in order and stopped cleanly. Every write of a term (its controllers', events', the
 * provider's, on the Kubernetes API and on the cloud) goes through the term's write fence (platform/term-fence.ts).
 *
 * `SIGTERM`/`SIGINT` (the signal) stop the term in this order: no new write may begin and the controllers stop
 * taking work; the writes in flight run to their answers (bounded); only then is the lease released, so the
 * standby's first write never overlaps ours; then the server closes and the manager resolves 0. An error that means
 * the controllers cannot run (`FatalError`, see leadership-term.ts) stops everything the same way (the lease is
 * released, not kept while nothing runs) and resolves 1, the last log line naming the cause. Losing the lease
 * (another holder, or the renew deadline passed, e.g. after a pause) ends the term at once, aborting its writes, and
 * resolves 1.
 */
import type { ConsolaInstance } from "consola";
import type { ControllerName } from "../controllers/names.ts";
import { createKubeClient } from "../kube/client.ts";
import type { KubeClient } from "../kube/client-types.ts";
import { type Clock, systemClock } from "../kube/clock.ts";
import { kubeClientMetrics } from "../kube/metrics.ts";
import { createPacing } from "../kube/pacing.ts";
import { loadTransport } from "../kube/transport.ts";
import type { WriteFence } from "../kube/write-fence.ts";
import { redactUrlCredentials } from "../net/url-credentials.ts";
import { type HealthCheck, namedCheck } from "../platform/healthz.ts";
import { type LeaderElection, leaderIdentity, runLeaderElection } from "../platform/leader-election.ts";
import { leaderElectionMetrics } from "../platform/leader-election-metrics.ts";
import { type Serving, startServing } from "../platform/serving.ts";
import { createFenceSet, createTermFence, type TermFence } from "../platform/term-fence.ts";
import type { TlsListener } from "../platform/tls-listener.ts";
import { isCompositeProvider } from "../providers/composite/provider.ts";
import type { RunManager } from "./command.ts";
import { controllerRoles, describeRoles } from "./leader-migration.ts";
import { FatalError, runTerm, type Starters, type TermHealth } from "./leadership-term.ts";
import { startWebhooks } from "./webhooks.ts";

export type { Starters } from "./leadership-term.ts";

/** How long stopping may take (controllers, then the writes in flight) before the manager gives up waiting. */
const STOP_GRACE_MS = 10_000;

/** One run of the controllers: its work signal's controller and its write fence. */
interface RunningTerm {
  readonly stop: AbortController;
  readonly fence: TermFence;
  readonly run: Promise<void>;
}

/** A lease this manager contends for (the main lock, and under leader migration the migration lock), and its term. */
interface Lock {
  election?: LeaderElection;
  /** Aborted when the term's writes may still land: the election ends without release, the lease left to expire. */
  readonly electionStop: AbortController;
  term?: RunningTerm;
}

export function createRunManager(starters: Starters, clock: Clock = systemClock): RunManager {
  return async ({ options, provider, logger, signal, metrics: registry }) => {
    // Like upstream's client builder, every user gets a client of its own — leader election, the shared informers,
    // the event recorders, each controller — so each has its own client-side rate limiter (--kube-api-qps and
    // --kube-api-burst apply to each): lease renewals never queue behind controller writes, and one busy
    // controller cannot starve another.
    // Ends with the manager, however it ends: an exec credential plugin still running then is killed with it.
    const lifetime = new AbortController();
    let clientFor: (user: string, fence?: WriteFence) => KubeClient;
    try {
      const transport = loadTransport({
        kubeconfig: options.kubeconfig || undefined,
        master: options.master || undefined,
        env: process.env,
        signal: AbortSignal.any([signal, lifetime.signal]),
      });
      // One pacing decision for all of them (kube/pacing.ts): the server's flow control unless the flags were set.
      const pacing = createPacing({
        qps: options.kubeApiQps,
        burst: options.kubeApiBurst,
        explicit: options.kubeApiLimitsSet ?? true,
        now: clock.now,
        sleep: clock.sleep,
        log: (message) => logger.info(message),
        registry,
      });
      clientFor = (user, fence) =>
        createKubeClient(transport, {
          qps: options.kubeApiQps,
          burst: options.kubeApiBurst,
          userAgent: `cloud-controller-manager/${user}`,
          fence,
          metrics: kubeClientMetrics(registry),
          // Each client is a flow of its own: a 429 narrows only its window, never the lease renewals' (kube/pacing.ts).
          pacing,
        });
      logger.info(`Kubernetes API at ${redactUrlCredentials(transport.server)} (from ${transport.source})`);
    } catch (err) {
      logger.error(`cannot build the Kubernetes client: ${(err as Error).message}`);
      return 1;
    }
    const client = clientFor("manager");

    const checks: HealthCheck[] = [];
    const health: TermHealth = { problem: undefined };
    checks.push({
      name: "controllers",
      check: () => {
        if (health.problem) throw new Error(health.problem);
      },
    });
    if (isCompositeProvider(provider)) {
      // A part that started degraded (its cloud was down) takes the manager out of readiness, named, until it
      // initializes; liveness stays: a restart would not bring that cloud back, and would stop the other parts.
      for (const part of provider.parts) {
        checks.push({
          name: `provider-composite-part-${part.name}`,
          readyzOnly: true,
          check: () => {
            const problem = provider.partProblem(part.name);
            if (problem) throw new Error(problem);
          },
        });
      }
    }
    let serving: Serving | undefined;
    const lost = new AbortController();
    // Aborted with the `FatalError` that means the controllers cannot run: the process exits 1 naming it.
    const fatal = new AbortController();
    const onFatal = (err: FatalError) => {
      if (!fatal.signal.aborted) fatal.abort(err);
    };
    const stop = AbortSignal.any([signal, lost.signal, fatal.signal]);
    const base = { options, provider, logger, client, registry, clock, starters, health, onFatal };
    // The provider's own writes (its client) belong to no one controller: they pass only while every term held
    // passes them (platform/term-fence.ts `createFenceSet`). The provider is initialised once, by the first term.
    const providerUser = `provider-${provider.providerName}`;
    const providerFence = createFenceSet();
    let providerReady = () => {};
    const providerInitialized = new Promise<void>((resolve) => {
      providerReady = resolve;
    });
    let terms = 0;
    /** Without leader election the term has no `leading` signal: it ends only by being stopped. */
    const startTerm = (
      leading: AbortSignal | undefined,
      over: () => string | undefined,
      runs?: (name: ControllerName) => boolean,
    ): RunningTerm => {
      const fence = createTermFence({ over, sleep: clock.sleep });
      providerFence.add(fence);
      const termStop = new AbortController();
      // Leadership lost: no write of this term may land any more, in flight or not.
      leading?.addEventListener("abort", () => fence.end(over() ?? "the leadership term is over"), { once: true });
      const run = runTerm({
        ...base,
        clientFor: (user) => clientFor(user, user === providerUser ? providerFence : fence),
        fence,
        signal: leading ? AbortSignal.any([leading, termStop.signal]) : termStop.signal,
        runs,
        ...(terms++ === 0 ? { onProviderInitialized: providerReady } : { providerInitialized }),
      });
      return { stop: termStop, fence, run };
    };

    /** Each lock this manager contends for, with the term it holds (at most one term each). */
    const locks: Lock[] = [];
    if (options.leaderElection.enabled) {
      const le = options.leaderElection;
      const identity = leaderIdentity();
      const elect = (
        name: string,
        lostMessage: string,
        onStarted: (leading: AbortSignal, over: () => string | undefined) => RunningTerm,
      ): void => {
        const lock: Lock = { electionStop: new AbortController() };
        lock.election = runLeaderElection({
          client: clientFor("leader-election"),
          namespace: le.namespace,
          name,
          identity,
          leaseDurationMs: le.leaseDurationMs,
          renewDeadlineMs: le.renewDeadlineMs,
          retryPeriodMs: le.retryPeriodMs,
          now: clock.now,
          sleep: clock.sleep,
          logger: logger.withTag("leader-election"),
          metrics: leaderElectionMetrics(registry),
          // Aborted only when writes may still land: the election then ends without release, the lease left to expire.
          signal: lock.electionStop.signal,
          onStartedLeading: (leading, over) => {
            // Won while stopping: the lease is released at once, and nothing may start.
            if (!stop.aborted) lock.term = onStarted(leading, over);
          },
          onStoppedLeading: (reason) => {
            if (reason === "lost") {
              logger.error(lostMessage);
              lost.abort(new Error(lostMessage));
            }
          },
        });
        locks.push(lock);
      };
      const migration = options.leaderMigrationConfig;
      if (!migration) {
        elect(le.name, "leaderelection lost", (leading, over) => {
          logger.info("became leader; starting controllers");
          return startTerm(leading, over);
        });
      } else {
        // upstream: app/controllermanager.go `Run`: the migration lock is contended for only once the main lock is
        // held, so one manager never holds the migration lock while another holds the main one.
        const roles = controllerRoles(migration);
        const role = (name: ControllerName) => roles.find((r) => r.name === name)?.role;
        logger.info(`starting leader migration: ${describeRoles(roles, le.namespace, le.name, migration.leaderName)}`);
        elect(le.name, "leaderelection lost", (leading, over) => {
          logger.info("leader migration: starting main controllers.");
          const term = startTerm(leading, over, (name) => role(name) === "non-migrated");
          elect(migration.leaderName, "migration leaderelection lost", (migrationLeading, migrationOver) => {
            logger.info("leader migration: starting migrated controllers.");
            return startTerm(migrationLeading, migrationOver, (name) => role(name) === "migrated");
          });
          return term;
        });
      }
      checks.push(
        namedCheck(
          "leaderElection",
          () => locks.every((lock) => lock.election?.healthy() ?? true),
          "failed election to renew leadership",
        ),
      );
    } else {
      locks.push({ electionStop: new AbortController(), term: startTerm(undefined, () => undefined) });
    }

    if (options.serving.securePort > 0) {
      try {
        serving = await startServing({
          bindAddress: options.serving.bindAddress,
          port: options.serving.securePort,
          certFile: options.serving.certFile || undefined,
          keyFile: options.serving.keyFile || undefined,
          certDir: options.serving.certDir,
          permitPortSharing: options.serving.permitPortSharing,
          tls: options.serving.tls,
          client,
          alwaysAllowPaths: options.serving.alwaysAllowPaths,
          profiling: options.serving.profiling,
          heapSnapshot: options.serving.heapSnapshot,
          checks,
          registry,
          logger: logger.withTag("serving"),
          tokenCacheTtlMs: options.serving.tokenCacheTtlMs,
          authorizedCacheTtlMs: options.serving.allowedCacheTtlMs,
          unauthorizedCacheTtlMs: options.serving.deniedCacheTtlMs,
          now: clock.now,
        });
        logger.info(`serving health and metrics on ${serving.url}${serving.selfSigned ? " (self-signed)" : ""}`);
      } catch (err) {
        onFatal(
          new FatalError(
            `cannot serve on --bind-address=${options.serving.bindAddress} --secure-port=${options.serving.securePort}: ${(err as Error).message}`,
            { cause: err },
          ),
        );
      }
    }

    const webhooks: TlsListener | undefined = await startWebhooks({
      options,
      provider,
      logger,
      registry,
      now: clock.now,
    }).catch((err: Error) => {
      onFatal(new FatalError(`cannot serve the webhooks: ${err.message}`, { cause: err }));
      return undefined;
    });

    await waitAborted(stop);
    // The migration lock (the last) first: each lease is handed back only once its own term's writes are done.
    for (const lock of [...locks].reverse()) await stopLock(lock, clock, logger);
    await serving?.stop();
    await webhooks?.stop();
    lifetime.abort();
    // The last line names why the process ends, so `journalctl -n1` or a pod's last log line says it.
    const cause = fatal.signal.aborted ? fatal.signal.reason : lost.signal.aborted ? lost.signal.reason : undefined;
    if (cause) {
      logger.error(`exiting: ${(cause as Error).message}`);
      return 1;
    }
    logger.info("stopped");
    return 0;
  };
}

/** Stops the lock's term, then hands its lease back, unless the term's writes may still land. */
async function stopLock(lock: Lock, clock: Clock, logger: ConsolaInstance): Promise<void> {
  const drained = lock.term ? await stopTerm(lock.term, clock, logger) : true;
  if (!drained) {
    logger.warn("not releasing the leader lease while writes may still land; a standby takes over when it expires");
    lock.electionStop.abort();
  }
  // Hands the lease back (when we lead) only now that the term's writes are done; after a loss it only waits.
  await withDeadline(lock.election?.release() ?? Promise.resolve(), STOP_GRACE_MS, clock, () =>
    logger.warn("the leader lease could not be released in time"),
  );
}

/**
 * No new write, stop taking work, then wait (within `STOP_GRACE_MS` in all) for the controllers and for every write
 * in flight. False when writes were still running at the deadline (they are then aborted, but may yet land), or when
 * one ended without an answer while stopping (its own timeout): it too may yet land.
 */
async function stopTerm(term: RunningTerm, clock: Clock, logger: ConsolaInstance): Promise<boolean> {
  const deadline = clock.now() + STOP_GRACE_MS;
  term.fence.close("the manager is stopping");
  term.stop.abort();
  await withDeadline(term.run, STOP_GRACE_MS, clock, () =>
    logger.warn(`controllers did not stop within ${STOP_GRACE_MS / 1000}s; exiting anyway`),
  );
  // Named at debug, so a handover that came too soon says which writes it waited for (or that there were none).
  const waiting = term.fence.inFlight();
  const from = clock.now();
  logger.debug(
    waiting.length === 0
      ? "no write in flight once the controllers stopped"
      : `waiting for ${waiting.length} write(s) in flight before releasing the lease: ${waiting.join(", ")}`,
  );
  const drained = await term.fence.drain(Math.max(0, deadline - clock.now()));
  const still = term.fence.inFlight();
  const unanswered = term.fence.unanswered();
  if (drained) {
    if (waiting.length > 0) logger.debug(`the writes in flight ended after ${Math.round(clock.now() - from)}ms`);
    return true;
  }
  if (still.length > 0) {
    logger.warn(
      `${still.length} write(s) still in flight ${STOP_GRACE_MS / 1000}s after stopping began: ${still.join(", ")}`,
    );
  }
  if (unanswered.length > 0) {
    logger.warn(
      `${unanswered.length} write(s) ended without an answer while stopping and may yet land: ${unanswered.join(", ")}`,
    );
  }
  return false;
}

function waitAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

async function withDeadline<T>(p: Promise<T>, ms: number, clock: Clock, onLate: () => void): Promise<T | undefined> {
  const gone = new AbortController();
  const late = clock.sleep(ms, gone.signal).then(() => {
    if (!gone.signal.aborted) onLate();
    return undefined;
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    gone.abort();
  }
}
