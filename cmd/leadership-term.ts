/**
 * One run of the controllers (upstream: app/controllermanager.go `Run`, its `run` closure; a leadership term with
 * leader election): wait for the API server, start the shared informers, initialise the provider, start the
 * controllers, and run until the signal aborts.
 *
 * Anything that means the controllers cannot run — the API server not answering in time, the provider's
 * `initialize` failing, a fatal start error, a controller that crashes — is a `FatalError` handed to `onFatal` at
 * once (the manager then exits non-zero naming it); the term then stops what it started before it resolves.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { ControllerContext, ControllerOptions, StartController } from "../controllers/context.ts";
import { ControllerStartError } from "../controllers/context.ts";
import { CONTROLLERS, type ControllerName, isControllerEnabled } from "../controllers/names.ts";
import { controllerMetrics } from "../controllers/runtime/metrics.ts";
import type { KubeClient } from "../kube/client-types.ts";
import type { Clock } from "../kube/clock.ts";
import { createInformerFactory, type InformerFactory } from "../kube/informer-factory.ts";
import type { WriteFence } from "../kube/write-fence.ts";
import { createEventRecorder, type EventRecorder } from "../platform/events.ts";
import { createFailureLog, messageOf } from "../platform/failure-log.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import { createProviderRuntime } from "../providers/runtime.ts";
import { quietAfterAbort } from "./logger.ts";
import type { Options } from "./options.ts";

export type Starters = Readonly<Record<ControllerName, StartController>>;

/** Upstream waits this long for the API server's `/healthz` before giving up (fatal). */
export const API_HEALTH_WAIT_MS = 10_000;
const API_HEALTH_POLL_MS = 500;
/**
 * An attempt still in flight at the deadline is given this much longer, so a cause that arrives just then (an exec
 * plugin's own timeout, a TLS error on a slow link) is the one reported, not a bare "no answer".
 */
const API_HEALTH_GRACE_MS = 2_000;

/** The controllers cannot run; the message names the cause (and `cause` carries it). */
export class FatalError extends Error {
  override readonly name = "FatalError";
}

/** What `/healthz` reports while the controllers are not running as they should; `undefined` when they are. */
export interface TermHealth {
  problem: string | undefined;
}

export interface TermInput {
  readonly options: Options;
  readonly provider: CloudProvider;
  readonly logger: ConsolaInstance;
  readonly client: KubeClient;
  readonly clientFor: (user: string) => KubeClient;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly starters: Starters;
  readonly health: TermHealth;
  readonly signal: AbortSignal;
  /** The term's write fence; `clientFor` already builds clients that go through it. */
  readonly fence?: WriteFence | undefined;
  /** Called once, at the first fatal error, before the term stops what it started. */
  readonly onFatal: (err: FatalError) => void;
  /** The controllers this term runs (leader migration: those of its lock); absent, all. */
  readonly runs?: ((name: ControllerName) => boolean) | undefined;
  /**
   * Set when another term of the process initialises the provider (leader migration's second term): this one waits
   * for it instead, so the provider is initialised once, with one runtime.
   */
  readonly providerInitialized?: Promise<void> | undefined;
  /** Called once this term has initialised the provider. */
  readonly onProviderInitialized?: (() => void) | undefined;
}

export async function runTerm(t: TermInput): Promise<void> {
  const failed = new AbortController();
  const signal = AbortSignal.any([t.signal, failed.signal]);
  const running: Promise<void>[] = [];
  let informers: InformerFactory | undefined;
  const recorders = new Map<string, EventRecorder>();
  try {
    await waitForApiServer(t, signal);
    if (signal.aborted) return;
    informers = createInformerFactory({
      client: t.clientFor("shared-informers"),
      logger: t.logger.withTag("informers"),
      resyncMs: resyncPeriod(t.options.minResyncPeriodMs),
    });
    // Started before the provider and the controllers: an informer asked for later starts at once, and its
    // handlers still get every cached object, so a provider may wait for its caches inside `initialize`.
    informers.start(signal);
    if (t.providerInitialized) {
      if (!(await resolvedBeforeAbort(t.providerInitialized, signal))) return;
    } else {
      await initializeProvider(t, informers, signal);
      t.onProviderInitialized?.();
    }
    await startControllers(t, informers, recorders, running, signal);
    startProviderControllers(t, informers, running, signal);
    await Promise.all(running);
  } catch (err) {
    if (signal.aborted && !(err instanceof FatalError)) return;
    const fatal =
      err instanceof FatalError ? err : new FatalError(`a controller failed: ${messageOf(err)}`, { cause: err });
    t.health.problem = fatal.message;
    t.onFatal(fatal);
    failed.abort(fatal);
    await Promise.allSettled(running);
  } finally {
    await informers?.stopped();
    await Promise.all([...recorders.values()].map(async (r) => r.stop()));
  }
}

/**
 * Polls `/healthz` until it answers, for at most `API_HEALTH_WAIT_MS`; the first failure is logged with its real
 * cause (TLS, 401/403 and who we are, an exec plugin's exit and stderr, a refused connection), later ones at
 * most once per back-off step, and `/healthz` names it meanwhile. Throws `FatalError` with the last cause.
 */
async function waitForApiServer(t: TermInput, signal: AbortSignal): Promise<void> {
  const { clock } = t;
  const log = createFailureLog({
    what: "the Kubernetes API server does not answer /healthz",
    logger: t.logger,
    now: clock.now,
  });
  const deadline = clock.now() + API_HEALTH_WAIT_MS;
  for (;;) {
    const attempt = new AbortController();
    const cancel = clock.setTimer(
      () => attempt.abort(new Error("no answer")),
      deadline - clock.now() + API_HEALTH_GRACE_MS,
    );
    try {
      await t.client.raw("GET", "/healthz", undefined, { signal: AbortSignal.any([signal, attempt.signal]) });
      log.recovered();
      t.health.problem = undefined;
      return;
    } catch (err) {
      if (signal.aborted) return;
      log.failed(err);
      t.health.problem = `waiting for the Kubernetes API server: ${messageOf(err)}`;
      if (clock.now() >= deadline) {
        throw new FatalError(
          `the Kubernetes API server did not answer /healthz within ${API_HEALTH_WAIT_MS / 1000}s: ${messageOf(err)}`,
          { cause: err },
        );
      }
    } finally {
      cancel();
    }
    await clock.sleep(Math.min(API_HEALTH_POLL_MS, Math.max(0, deadline - clock.now())), signal);
  }
}

async function initializeProvider(t: TermInput, informers: InformerFactory, signal: AbortSignal): Promise<void> {
  const name = t.provider.providerName;
  try {
    await t.provider.initialize?.(
      createProviderRuntime({
        signal,
        logger: t.logger.withTag(name),
        kube: t.clientFor(`provider-${name}`),
        metrics: t.registry,
        informers,
      }),
    );
  } catch (err) {
    if (signal.aborted) throw err;
    throw new FatalError(`cloud provider ${name} failed to initialize: ${messageOf(err)}`, { cause: err });
  }
}

/**
 * The provider's own loops (`CloudProvider.controllers`), with the term's fence; each is awaited like a controller.
 * Under leader migration they belong to the lock that runs the service controller (the Services are what they
 * follow), so one process never runs them twice and two managers never run them at once.
 */
function startProviderControllers(
  t: TermInput,
  informers: InformerFactory,
  running: Promise<void>[],
  signal: AbortSignal,
): void {
  if (t.runs && !t.runs("service-lb-controller")) return;
  const name = t.provider.providerName;
  for (const controller of t.provider.controllers ?? []) {
    if (signal.aborted) return;
    const logger = quietAfterAbort(t.logger.withTag(`${name}/${controller.name}`), signal);
    const runtime = createProviderRuntime({
      signal,
      logger,
      kube: t.clientFor(`provider-${name}`),
      metrics: t.registry,
      informers,
    });
    t.logger.info(`started "${name}/${controller.name}"`);
    running.push(controller.run({ ...runtime, fence: t.fence }));
  }
}

async function startControllers(
  t: TermInput,
  informers: InformerFactory,
  recorders: Map<string, EventRecorder>,
  running: Promise<void>[],
  signal: AbortSignal,
): Promise<void> {
  const { logger } = t;
  const eventsClient = t.clientFor("events");
  const recorder = (component: string): EventRecorder => {
    let r = recorders.get(component);
    if (!r) {
      r = createEventRecorder({
        client: eventsClient,
        component,
        logger: logger.withTag("events"),
        now: t.clock.now,
        sleep: t.clock.sleep,
        registry: t.registry,
      });
      recorders.set(component, r);
    }
    return r;
  };
  const metrics = controllerMetrics(t.registry);
  for (const { name } of CONTROLLERS) {
    if (signal.aborted) return;
    if (t.runs && !t.runs(name)) continue;
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
      fence: t.fence,
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
      if (err instanceof ControllerStartError) {
        throw new FatalError(`error running controllers: ${err.message}`, { cause: err });
      }
      logger.error(`"${name}" failed to start: ${messageOf(err)}`);
      continue;
    }
    if (t.options.controllerStartIntervalMs > 0) {
      await t.clock.sleep(t.options.controllerStartIntervalMs * (1 + Math.random()), signal);
    }
  }
}

function controllerOptions(o: Options): ControllerOptions {
  return {
    clusterName: o.clusterName,
    clusterCIDR: o.clusterCIDR,
    configureCloudRoutes: o.configureCloudRoutes,
    allocateNodeCIDRs: o.allocateNodeCIDRs,
    cidrAllocatorType: o.cidrAllocatorType,
    nodeCIDRMaskSize: o.nodeCIDRMaskSize,
    nodeCIDRMaskSizeIPv4: o.nodeCIDRMaskSizeIPv4,
    nodeCIDRMaskSizeIPv6: o.nodeCIDRMaskSizeIPv6,
    serviceClusterIPRange: o.serviceClusterIPRange,
    routeReconciliationPeriodMs: o.routeReconciliationPeriodMs,
    nodeMonitorPeriodMs: o.nodeMonitorPeriodMs,
    nodeStatusUpdateFrequencyMs: o.nodeStatusUpdateFrequencyMs,
    concurrentNodeSyncs: o.concurrentNodeSyncs,
    concurrentNodeStatusUpdates: o.concurrentNodeStatusUpdates,
    concurrentServiceSyncs: o.concurrentServiceSyncs,
    featureGates: o.featureGates,
  };
}

/** True once `p` resolves, false if `signal` aborts first. */
function resolvedBeforeAbort(p: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    });
  });
}

/** Upstream: a random period in [min, 2×min). */
function resyncPeriod(minMs: number): number {
  return Math.floor(minMs * (1 + Math.random()));
}
