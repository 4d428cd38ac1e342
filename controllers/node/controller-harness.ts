/**
 * Runs a real node-controller runner for tests: the in-memory API, a real informer factory over it, the fake
 * cloud, a captured logger, real event recorders and metrics, and a manual clock for the controllers' own waits
 * (the informers keep real time). Test support only; nothing in the product imports it.
 */
import type { Registry } from "prom-client";
import { Resources } from "../../kube/client-types.ts";
import { createInformerFactory } from "../../kube/informer-factory.ts";
import type { Event, Node } from "../../kube/objects.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import type { ControllerContext, ControllerOptions, StartController, StartResult } from "../context.ts";
import type { ControllerName } from "../names.ts";
import { createEventRecorder, type EventRecorder } from "../runtime/events.ts";
import { controllerMetrics, createMetricsRegistry } from "../runtime/metrics.ts";
import { FakeClock } from "../runtime/testing/fake-clock.ts";
import { captureLogger } from "../runtime/testing/logger.ts";
import { MemoryKubeClient } from "../runtime/testing/memory-client.ts";

export const testOptions: ControllerOptions = {
  clusterName: "kubernetes",
  clusterCIDR: "",
  configureCloudRoutes: false,
  routeReconciliationPeriodMs: 10_000,
  nodeMonitorPeriodMs: 5_000,
  nodeStatusUpdateFrequencyMs: 300_000,
  concurrentNodeSyncs: 1,
  concurrentNodeStatusUpdates: 5,
  concurrentServiceSyncs: 1,
  featureGates: new Map(),
};

export interface Harness {
  readonly client: MemoryKubeClient;
  readonly clock: FakeClock;
  readonly ctx: ControllerContext;
  readonly registry: Registry;
  readonly logs: { type: string; message: string }[];
  /** Calls the start function, then starts the informers (the manager's order). */
  start(start: StartController): Promise<StartResult>;
  /** Aborts, waits for the runner and the informers to stop, flushes the recorders. */
  stop(): Promise<void>;
  /** Writes every queued event. */
  flushEvents(): Promise<void>;
  events(reason?: string): Event[];
  /** Create/update/patch/delete requests on one node. */
  nodeWrites(name: string): number;
  node(name: string): Node | undefined;
  /** The informer's cached copy. */
  cached(name: string): Node | undefined;
  gauge(name: string): Promise<number | undefined>;
  /** How many items the named queue has finished processing. */
  processed(queue: string): Promise<number>;
}

export function startHarness(
  name: ControllerName,
  cloud: FakeCloud,
  nodes: readonly Node[],
  options: Partial<ControllerOptions> = {},
): Harness {
  const clock = new FakeClock();
  const client = new MemoryKubeClient({ now: clock.now });
  client.seed(Resources.nodes, ...nodes);
  const { logger, logs } = captureLogger();
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const informers = createInformerFactory({ client, logger });
  const abort = new AbortController();
  const recorders: EventRecorder[] = [];
  const ctx: ControllerContext = {
    name,
    client,
    provider: cloud,
    informers,
    recorder: (component) => {
      const recorder = createEventRecorder({ client, component, logger, now: clock.now });
      recorders.push(recorder);
      return recorder;
    },
    metrics: controllerMetrics(registry),
    registry,
    clock,
    logger,
    options: { ...testOptions, ...options },
    signal: abort.signal,
  };
  let done: Promise<void> = Promise.resolve();
  const flushEvents = async () => {
    await Promise.all(recorders.map((r) => r.flush()));
  };
  const sampleValue = async (metric: string, labels: Record<string, string>, suffix = "") => {
    const values = (await registry.getSingleMetric(metric)?.get())?.values ?? [];
    const found = values.find(
      (v) =>
        (suffix === "" || (v as { metricName?: string }).metricName === `${metric}${suffix}`) &&
        Object.entries(labels).every(([k, want]) => v.labels[k] === want),
    );
    return found?.value;
  };
  return {
    client,
    clock,
    ctx,
    registry,
    logs,
    async start(start) {
      const result = await start(ctx);
      if (result.started) done = result.done;
      informers.start(abort.signal);
      return result;
    },
    async stop() {
      abort.abort();
      await done;
      await informers.stopped();
      await Promise.all(recorders.map((r) => r.stop()));
    },
    flushEvents,
    events: (reason) => client.all<Event>(Resources.events).filter((e) => reason === undefined || e.reason === reason),
    nodeWrites: (node) => client.writes({ resource: "nodes", name: node }).length,
    node: (node) => client.peek<Node>(Resources.nodes, node),
    cached: (node) => informers.forResource<Node>(Resources.nodes).get(node),
    gauge: (controller) => sampleValue("running_managed_controllers", { name: controller }),
    processed: async (queue) => (await sampleValue("workqueue_work_duration_seconds", { name: queue }, "_count")) ?? 0,
  };
}
