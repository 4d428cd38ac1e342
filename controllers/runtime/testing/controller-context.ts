/**
 * A `ControllerContext` over the in-memory API for runner tests: a real informer factory on a `MemoryKubeClient`,
 * real event recorders writing to it, a metrics registry, a captured logger, and the manager's order of things
 * (start function first, informers after).
 */
import type { Registry } from "prom-client";
import { Resources } from "../../../kube/client-types.ts";
import { createInformerFactory, type InformerFactory } from "../../../kube/informer-factory.ts";
import type { Event } from "../../../kube/objects.ts";
import type { CloudProvider } from "../../../providers/cloud.ts";
import type { ControllerContext, ControllerOptions, StartController, StartResult } from "../../context.ts";
import type { ControllerName } from "../../names.ts";
import { type Clock, systemClock } from "../clock.ts";
import { createEventRecorder, type EventRecorder } from "../events.ts";
import { controllerMetrics, createMetricsRegistry } from "../metrics.ts";
import { type CapturedLog, captureLogger } from "./logger.ts";
import { MemoryKubeClient } from "./memory-client.ts";

export const defaultControllerOptions: ControllerOptions = {
  clusterName: "kubernetes",
  clusterCIDR: "",
  configureCloudRoutes: true,
  routeReconciliationPeriodMs: 10_000,
  nodeMonitorPeriodMs: 5_000,
  nodeStatusUpdateFrequencyMs: 300_000,
  concurrentNodeSyncs: 1,
  concurrentNodeStatusUpdates: 5,
  concurrentServiceSyncs: 1,
  featureGates: new Map(),
};

export interface ControllerHarnessOptions {
  readonly name: ControllerName;
  readonly provider: CloudProvider;
  readonly client?: MemoryKubeClient;
  readonly clock?: Clock;
  readonly options?: Partial<ControllerOptions>;
}

export interface ControllerHarness {
  readonly ctx: ControllerContext;
  readonly client: MemoryKubeClient;
  readonly informers: InformerFactory;
  readonly logs: CapturedLog[];
  readonly registry: Registry;
  /** Calls the start function, then starts the informers, as the manager does. */
  start(start: StartController): Promise<StartResult>;
  /** Aborts, then waits for the controller (if it started), the informers and the recorders to stop. */
  stop(): Promise<void>;
  /** Events written to the API so far, after flushing the recorders. */
  events(): Promise<Event[]>;
  /** The current value of one metric sample, `undefined` when absent. */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
}

export function controllerHarness(opts: ControllerHarnessOptions): ControllerHarness {
  const client = opts.client ?? new MemoryKubeClient();
  const clock = opts.clock ?? systemClock;
  const { logger, logs } = captureLogger();
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const abort = new AbortController();
  const informers = createInformerFactory({ client, logger: logger.withTag("informers") });
  const recorders = new Map<string, EventRecorder>();
  const recorder = (component: string): EventRecorder => {
    let r = recorders.get(component);
    if (!r) {
      r = createEventRecorder({ client, component, logger: logger.withTag("events"), now: clock.now });
      recorders.set(component, r);
    }
    return r;
  };
  const ctx: ControllerContext = {
    name: opts.name,
    client,
    provider: opts.provider,
    informers,
    recorder,
    metrics: controllerMetrics(registry),
    registry,
    clock,
    logger: logger.withTag(opts.name),
    options: { ...defaultControllerOptions, ...opts.options },
    signal: abort.signal,
  };
  let result: StartResult | undefined;
  return {
    ctx,
    client,
    informers,
    logs,
    registry,
    async start(start) {
      result = await start(ctx);
      informers.start(abort.signal);
      return result;
    },
    async stop() {
      abort.abort();
      if (result?.started) await result.done;
      await informers.stopped();
      await Promise.all([...recorders.values()].map((r) => r.stop()));
    },
    async events() {
      await Promise.all([...recorders.values()].map((r) => r.flush()));
      return client.all<Event>(Resources.events);
    },
    async metric(name, labels = {}) {
      const metric = registry.getSingleMetric(name);
      if (!metric) return undefined;
      const { values } = await metric.get();
      const wanted = Object.entries(labels);
      const sample = values.find((v) => wanted.every(([k, val]) => String(v.labels[k]) === val));
      return sample?.value;
    },
  };
}
