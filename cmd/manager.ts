/**
 * The manager (spec c.5): Kubernetes client, metrics, health, serving, leader election, and the controllers,
 * started in order and stopped cleanly. `SIGTERM`/`SIGINT` (the signal) stop the controllers, release the lease
 * so a standby takes over within seconds, close the server, and resolve 0; losing the lease resolves 1.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { ControllerContext, ControllerOptions, StartController } from "../controllers/context.ts";
import { ControllerStartError } from "../controllers/context.ts";
import { CONTROLLERS, type ControllerName, isControllerEnabled } from "../controllers/names.ts";
import { type Clock, systemClock } from "../controllers/runtime/clock.ts";
import { createEventRecorder, type EventRecorder } from "../controllers/runtime/events.ts";
import { type HealthCheck, namedCheck } from "../controllers/runtime/healthz.ts";
import { leaderIdentity, runLeaderElection } from "../controllers/runtime/leader-election.ts";
import { controllerMetrics } from "../controllers/runtime/metrics.ts";
import { createProviderRuntime } from "../controllers/runtime/provider-informers.ts";
import { type Serving, startServing } from "../controllers/runtime/serving.ts";
import { createKubeClient } from "../kube/client.ts";
import type { KubeClient } from "../kube/client-types.ts";
import { createInformerFactory } from "../kube/informer-factory.ts";
import { loadTransport } from "../kube/transport.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import type { RunManager } from "./command.ts";
import { quietAfterAbort } from "./logger.ts";
import type { Options } from "./options.ts";

export type Starters = Readonly<Record<ControllerName, StartController>>;

/** How long stopping may take before the manager gives up waiting for controllers. */
const STOP_GRACE_MS = 10_000;
const API_HEALTH_WAIT_MS = 10_000;

export function createRunManager(starters: Starters, clock: Clock = systemClock): RunManager {
  return async ({ options, provider, logger, signal, metrics: registry }) => {
    // Like upstream's client builder, every user gets a client of its own — leader election, the shared informers,
    // the event recorders, each controller — so each has its own client-side rate limiter (--kube-api-qps and
    // --kube-api-burst apply to each): lease renewals never queue behind controller writes, and one busy
    // controller cannot starve another.
    let clientFor: (user: string) => KubeClient;
    try {
      const transport = loadTransport({
        kubeconfig: options.kubeconfig || undefined,
        master: options.master || undefined,
        env: process.env,
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
    let serving: Serving | undefined;
    const term = { run: undefined as Promise<number> | undefined };
    const lost = new AbortController();
    const stop = AbortSignal.any([signal, lost.signal]);
    const base = { options, provider, logger, client, clientFor, registry, clock, starters, checks };

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
        signal,
        releaseOnCancel: true,
        onStartedLeading: (leading) => {
          logger.info("became leader; starting controllers");
          term.run = runControllers({ ...base, signal: leading });
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
      term.run = runControllers({ ...base, signal });
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
        logger.error(
          `cannot serve on --bind-address=${options.serving.bindAddress} --secure-port=${options.serving.securePort}: ${(err as Error).message}`,
        );
        lost.abort(err);
        await election?.done;
        return 1;
      }
    }

    await waitAborted(stop);
    const code = lost.signal.aborted ? 1 : 0;
    const controllersCode = await withDeadline(term.run ?? Promise.resolve(0), STOP_GRACE_MS, clock, () =>
      logger.warn(`controllers did not stop within ${STOP_GRACE_MS / 1000}s; exiting anyway`),
    );
    await withDeadline(election?.done ?? Promise.resolve(), STOP_GRACE_MS, clock, () =>
      logger.warn("the leader lease could not be released in time"),
    );
    await serving?.stop();
    logger.info("stopped");
    return code || (controllersCode ?? 0);
  };
}

interface TermInput {
  readonly options: Options;
  readonly provider: CloudProvider;
  readonly logger: ConsolaInstance;
  readonly client: KubeClient;
  readonly clientFor: (user: string) => KubeClient;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly starters: Starters;
  readonly checks: HealthCheck[];
  readonly signal: AbortSignal;
}

/** One leadership term: wait for the API, start the shared informers, initialise the provider, start controllers. */
async function runControllers(t: TermInput): Promise<number> {
  const { logger, signal } = t;
  if (!(await apiServerHealthy(t.client, t.clock, signal))) {
    if (signal.aborted) return 0;
    logger.error(`the Kubernetes API server did not answer /healthz within ${API_HEALTH_WAIT_MS / 1000}s`);
    return 1;
  }
  const informers = createInformerFactory({
    client: t.clientFor("shared-informers"),
    logger: logger.withTag("informers"),
    resyncMs: resyncPeriod(t.options.minResyncPeriodMs),
  });
  // Started before the provider and the controllers: an informer asked for later starts at once, and its handlers
  // still get every cached object, so a provider may wait for its caches inside `initialize`.
  informers.start(signal);
  await t.provider.initialize?.(
    createProviderRuntime({
      signal,
      logger: logger.withTag(t.provider.providerName),
      kube: t.clientFor(`provider-${t.provider.providerName}`),
      metrics: t.registry,
      informers,
    }),
  );
  const eventsClient = t.clientFor("events");

  const recorders = new Map<string, EventRecorder>();
  const recorder = (component: string): EventRecorder => {
    let r = recorders.get(component);
    if (!r) {
      r = createEventRecorder({
        client: eventsClient,
        component,
        logger: logger.withTag("events"),
        now: t.clock.now,
        registry: t.registry,
      });
      recorders.set(component, r);
    }
    return r;
  };
  const metrics = controllerMetrics(t.registry);
  const running: Promise<void>[] = [];
  for (const { name } of CONTROLLERS) {
    if (!isControllerEnabled(name, t.options.controllers)) {
      logger.warn(`"${name}" is disabled`);
      continue;
    }
    const ctx: ControllerContext = {
      name,
      client: t.clientFor(name),
      provider: t.provider,
      informers,
      recorder,
      metrics,
      registry: t.registry,
      clock: t.clock,
      logger: quietAfterAbort(logger.withTag(name), signal),
      options: controllerOptions(t.options),
      signal,
    };
    try {
      const result = await t.starters[name](ctx);
      if (!result.started) {
        logger.warn(`Skipping "${name}": ${result.reason}`);
        continue;
      }
      logger.info(`started "${name}"`);
      running.push(result.done);
    } catch (err) {
      const fatal = err instanceof ControllerStartError;
      logger.error(`${fatal ? "error running controllers" : `"${name}" failed to start`}: ${(err as Error).message}`);
      if (fatal) return 1;
      continue;
    }
    if (t.options.controllerStartIntervalMs > 0) {
      await t.clock.sleep(t.options.controllerStartIntervalMs * (1 + Math.random()), signal);
    }
  }
  await Promise.all(running);
  await informers.stopped();
  await Promise.all([...recorders.values()].map(async (r) => r.stop()));
  return 0;
}

function controllerOptions(o: Options): ControllerOptions {
  return {
    clusterName: o.clusterName,
    clusterCIDR: o.clusterCIDR,
    configureCloudRoutes: o.configureCloudRoutes,
    routeReconciliationPeriodMs: o.routeReconciliationPeriodMs,
    nodeMonitorPeriodMs: o.nodeMonitorPeriodMs,
    nodeStatusUpdateFrequencyMs: o.nodeStatusUpdateFrequencyMs,
    concurrentNodeSyncs: o.concurrentNodeSyncs,
    concurrentNodeStatusUpdates: o.concurrentNodeStatusUpdates,
    concurrentServiceSyncs: o.concurrentServiceSyncs,
    featureGates: o.featureGates,
  };
}

/** Upstream: a random period in [min, 2×min). */
function resyncPeriod(minMs: number): number {
  return Math.floor(minMs * (1 + Math.random()));
}

async function apiServerHealthy(client: KubeClient, clock: Clock, signal: AbortSignal): Promise<boolean> {
  const deadline = clock.now() + API_HEALTH_WAIT_MS;
  while (!signal.aborted) {
    try {
      await client.raw("GET", "/healthz", undefined, { signal });
      return true;
    } catch {
      if (clock.now() >= deadline) return false;
      await clock.sleep(500, signal);
    }
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
