/**
 * The manager (spec c.5): Kubernetes client, metrics, health, serving, leader election, and the controllers,
 * started in order and stopped cleanly. `SIGTERM`/`SIGINT` (the signal) stop the controllers, release the lease
 * so a standby takes over within seconds, close the server, and resolve 0. Losing the lease, or an error that
 * means the controllers cannot run (`FatalError`, see term.ts), stops everything the same way (the lease is
 * released, not kept while nothing runs) and resolves 1, the last log line naming the cause.
 */
import { type Clock, systemClock } from "../controllers/runtime/clock.ts";
import { type HealthCheck, namedCheck } from "../controllers/runtime/healthz.ts";
import { leaderIdentity, runLeaderElection } from "../controllers/runtime/leader-election.ts";
import { type Serving, startServing } from "../controllers/runtime/serving.ts";
import { createKubeClient } from "../kube/client.ts";
import type { KubeClient } from "../kube/client-types.ts";
import { loadTransport } from "../kube/transport.ts";
import type { RunManager } from "./command.ts";
import { FatalError, runTerm, type Starters, type TermHealth } from "./term.ts";

export type { Starters } from "./term.ts";

/** How long stopping may take before the manager gives up waiting for controllers. */
const STOP_GRACE_MS = 10_000;

export function createRunManager(starters: Starters, clock: Clock = systemClock): RunManager {
  return async ({ options, provider, logger, signal, metrics: registry }) => {
    // Like upstream's client builder, every user gets a client of its own — leader election, the shared informers,
    // the event recorders, each controller — so each has its own client-side rate limiter (--kube-api-qps and
    // --kube-api-burst apply to each): lease renewals never queue behind controller writes, and one busy
    // controller cannot starve another.
    // Ends with the manager, however it ends: an exec credential plugin still running then is killed with it.
    const lifetime = new AbortController();
    let clientFor: (user: string) => KubeClient;
    try {
      const transport = loadTransport({
        kubeconfig: options.kubeconfig || undefined,
        master: options.master || undefined,
        env: process.env,
        signal: AbortSignal.any([signal, lifetime.signal]),
      });
      clientFor = (user) =>
        createKubeClient(transport, {
          qps: options.kubeApiQps,
          burst: options.kubeApiBurst,
          userAgent: `cloud-controller-manager/${user}`,
        });
      logger.info(`Kubernetes API at ${transport.server} (from ${transport.source})`);
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
    let serving: Serving | undefined;
    const term = { run: undefined as Promise<void> | undefined };
    const lost = new AbortController();
    // Aborted with the `FatalError` that means the controllers cannot run: the process exits 1 naming it.
    const fatal = new AbortController();
    const onFatal = (err: FatalError) => {
      if (!fatal.signal.aborted) fatal.abort(err);
    };
    const stop = AbortSignal.any([signal, lost.signal, fatal.signal]);
    const base = { options, provider, logger, client, clientFor, registry, clock, starters, health, onFatal };

    let election: ReturnType<typeof runLeaderElection> | undefined;
    if (options.leaderElection.enabled) {
      const le = options.leaderElection;
      election = runLeaderElection({
        client: clientFor("leader-election"),
        namespace: le.namespace,
        name: le.name,
        identity: leaderIdentity(),
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        now: clock.now,
        sleep: clock.sleep,
        logger: logger.withTag("leader-election"),
        // A fatal error ends the election too: the lease is handed back, not kept while nothing runs.
        signal: AbortSignal.any([signal, fatal.signal]),
        releaseOnCancel: true,
        onStartedLeading: (leading) => {
          logger.info("became leader; starting controllers");
          term.run = runTerm({ ...base, signal: leading });
        },
        onStoppedLeading: (reason) => {
          if (reason === "lost") {
            logger.error("leaderelection lost");
            lost.abort(new Error("leaderelection lost"));
          }
        },
      });
      checks.push(namedCheck("leaderElection", election.healthy, "failed election to renew leadership"));
    } else {
      term.run = runTerm({ ...base, signal });
    }

    if (options.serving.securePort > 0) {
      try {
        serving = await startServing({
          bindAddress: options.serving.bindAddress,
          port: options.serving.securePort,
          certFile: options.serving.certFile || undefined,
          keyFile: options.serving.keyFile || undefined,
          client,
          alwaysAllowPaths: options.serving.alwaysAllowPaths,
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

    await waitAborted(stop);
    await withDeadline(term.run ?? Promise.resolve(), STOP_GRACE_MS, clock, () =>
      logger.warn(`controllers did not stop within ${STOP_GRACE_MS / 1000}s; exiting anyway`),
    );
    await withDeadline(election?.done ?? Promise.resolve(), STOP_GRACE_MS, clock, () =>
      logger.warn("the leader lease could not be released in time"),
    );
    await serving?.stop();
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
