/**
 * A `ControllerContext` over the API emulator's store for runner tests: a real informer factory on an
 * `EmulatorKubeClient`, real event recorders writing to it, a metrics registry, a captured logger, and the manager's
 * order of things (start function first, informers after). One clock serves the context, the recorders and the client's
 * timestamps; pass a `FakeClock` to drive the controller's own waits (the informers keep real time).
 */
import type { Registry } from "prom-client";
import { Resources } from "../../../kube/client-types.ts";
import { type Clock, systemClock } from "../../../kube/clock.ts";
import { createInformerFactory, type InformerFactory } from "../../../kube/informer-factory.ts";
import type { Event, Node } from "../../../kube/objects.ts";
import { createEventRecorder, type EventRecorder } from "../../../platform/events.ts";
import { createMetricsRegistry } from "../../../platform/metrics.ts";
import { EmulatorKubeClient } from "../../../platform/testing/emulator-client.ts";
import { type CapturedLog, captureLogger } from "../../../platform/testing/logger.ts";
import type { CloudProvider } from "../../../providers/cloud.ts";
import type { ControllerContext, ControllerOptions, StartController, StartResult } from "../../context.ts";
import type { ControllerName } from "../../names.ts";
import { controllerMetrics } from "../metrics.ts";

export const defaultControllerOptions: ControllerOptions = {
  clusterName: "kubernetes",
  clusterCIDR: "",
  configureCloudRoutes: true,
  allocateNodeCIDRs: false,
  cidrAllocatorType: "RangeAllocator",
  nodeCIDRMaskSize: 0,
  nodeCIDRMaskSizeIPv4: 0,
  nodeCIDRMaskSizeIPv6: 0,
  serviceClusterIPRange: "",
  routeReconciliationPeriodMs: 10_000,
  nodeMonitorPeriodMs: 5_000,
  nodeStatusUpdateFrequencyMs: 300_000,
  concurrentNodeSyncs: 0,
  concurrentNodeStatusUpdates: 5,
  concurrentServiceSyncs: 1,
  featureGates: new Map(),
};

export interface ControllerHarnessOptions<C extends Clock = Clock> {
  readonly name: ControllerName;
  readonly provider: CloudProvider;
  /** Default: a fresh one whose timestamps come from `clock`. */
  readonly client?: EmulatorKubeClient;
  /** Default: the system clock. */
  readonly clock?: C;
  /** Stored in the API before anything starts. */
  readonly nodes?: readonly Node[];
  readonly options?: Partial<ControllerOptions>;
}

export interface ControllerHarness<C extends Clock = Clock> {
  readonly ctx: ControllerContext;
  readonly client: EmulatorKubeClient;
  readonly clock: C;
  readonly informers: InformerFactory;
  readonly logs: CapturedLog[];
  readonly registry: Registry;
  /** Calls the start function, then starts the informers, as the manager does. */
  start(start: StartController): Promise<StartResult>;
  /** Aborts, then waits for the controller (if it started), the informers and the recorders to stop. */
  stop(): Promise<void>;
  /** Events written to the API so far, after flushing the recorders. */
  events(): Promise<Event[]>;
  /** Writes every queued event. */
  flushEvents(): Promise<void>;
  /** Events the API holds now, without flushing (to wait for the recorders' own writes), of one reason if given. */
  writtenEvents(reason?: string): Event[];
  /** The stored node. */
  node(name: string): Node | undefined;
  /** The informer's cached copy of the node. */
  cached(name: string): Node | undefined;
  /** Create/update/patch/delete requests on one node. */
  nodeWrites(name: string): number;
  /**
   * The current value of one metric sample, `undefined` when absent. A histogram's series (`x_count`, `x_sum`,
   * `x_bucket`) is found by its own name.
   */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
}

export function controllerHarness<C extends Clock = Clock>(opts: ControllerHarnessOptions<C>): ControllerHarness<C> {
  const clock = (opts.clock ?? systemClock) as C;
  const client = opts.client ?? new EmulatorKubeClient({ now: clock.now });
  client.seed(Resources.nodes, ...(opts.nodes ?? []));
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
  const flushEvents = async () => {
    await Promise.all([...recorders.values()].map((r) => r.flush()));
  };
  const writtenEvents = (reason?: string) =>
    client.all<Event>(Resources.events).filter((e) => reason === undefined || e.reason === reason);
  let result: StartResult | undefined;
  return {
    ctx,
    client,
    clock,
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
      await flushEvents();
      return writtenEvents();
    },
    flushEvents,
    writtenEvents,
    node: (name) => client.peek<Node>(Resources.nodes, name),
    cached: (name) => informers.forResource<Node>(Resources.nodes).get(name),
    nodeWrites: (name) => client.writes({ resource: "nodes", name }).length,
    async metric(name, labels = {}) {
      const own = registry.getSingleMetric(name);
      const metric = own ?? registry.getSingleMetric(name.replace(/_(count|sum|bucket)$/, ""));
      if (!metric) return undefined;
      const { values } = await metric.get();
      const wanted = Object.entries(labels);
      const sample = values.find(
        (v) =>
          (own !== undefined || (v as { metricName?: string }).metricName === name) &&
          wanted.every(([k, val]) => String(v.labels[k]) === val),
      );
      return sample?.value;
    },
  };
}
