/**
 * The cloud-node controller's runner (upstream: controllers/node/node_controller.go `Run`): node events → the `Nodes`
 * queue → `syncNode` workers, plus the periodic address refresh. The term starts the shared informers before the
 * controllers (cmd/leadership-term.ts), yet a cache this controller asks for may still be filling: the cache-sync
 * wait happens inside the returned `done` loop, never in `startCloudNodeController` itself.
 */
import { Resources } from "../../kube/client-types.ts";
import { waitForCacheSync } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import type { ControllerContext, StartController, StartResult } from "../context.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { runWorkers } from "../runtime/run-workers.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { effectiveNodeSyncWorkers, gateProvider } from "./cloud-gate.ts";
import { errorText } from "./errors.ts";
import { cloudNodeUnsupported } from "./metadata.ts";
import { createNodeSyncer, type NodeSyncer } from "./node-sync.ts";
import { uninitializedNodesMetric } from "./uninitialized-metric.ts";

/** Event source component, upstream's. */
export const CLOUD_NODE_COMPONENT = "cloud-node-controller";
/** `running_managed_controllers{name}` (upstream's legacy name). */
export const CLOUD_NODE_METRIC_NAME = "cloud-node";
/** Work-queue name, for `workqueue_*{name}`. */
export const NODES_QUEUE = "Nodes";

const nameOf = (node: Node): string => node.metadata?.name ?? "";

/**
 * Declines (with upstream's reason) when the provider has neither `instancesV2` nor `instances`. Otherwise
 * registers its node-informer handler at once (every add and every update, resyncs included, enqueues the
 * name) and runs until `ctx.signal` aborts.
 */
export const startCloudNodeController: StartController = (ctx): StartResult => {
  const unsupported = cloudNodeUnsupported(ctx.provider);
  if (unsupported) return { started: false, reason: unsupported };

  const { clock, logger, options, signal } = ctx;
  const informer = ctx.informers.forResource<Node>(Resources.nodes);
  const queue = new WorkQueue<string>({ name: NODES_QUEUE, clock, registry: ctx.registry });
  const workers = effectiveNodeSyncWorkers(options.concurrentNodeSyncs, ctx.provider.rateLimit);
  const syncer = createNodeSyncer({
    client: ctx.client,
    cloud: gateProvider(ctx.provider, ctx.provider.rateLimit, clock, signal),
    lister: informer,
    recorder: ctx.recorder(CLOUD_NODE_COMPONENT),
    metrics: ctx.metrics,
    clock,
    logger,
    signal,
    // 0 means "as many as the initialisation workers" (upstream: --concurrent-node-status-updates=0).
    statusConcurrency: options.concurrentNodeStatusUpdates || workers,
  });
  const removeHandler = informer.addEventHandler({
    onAdd: (node) => queue.add(nameOf(node)),
    onUpdate: (_old, node) => queue.add(nameOf(node)),
    onDelete: (node) => syncer.forget(nameOf(node)),
  });

  const run = async (): Promise<void> => {
    const running = { name: CLOUD_NODE_METRIC_NAME, manager: MANAGER_NAME };
    ctx.metrics.runningManagedControllers.set(running, 1);
    const unwatch = uninitializedNodesMetric(ctx.registry).watch(informer);
    try {
      if (!(await waitForCacheSync([informer], signal))) return;
      logger.info(`cloud-node controller: ${workers} node sync workers`);
      await Promise.all([
        refreshLoop(ctx, syncer),
        runWorkers(queue, workers, (name) => sync(syncer, name, signal), signal, { logger }),
      ]);
    } finally {
      unwatch();
      removeHandler();
      queue.shutDown();
      ctx.metrics.runningManagedControllers.set(running, 0);
    }
  };
  return { started: true, done: run() };
};

/** `UpdateNodeStatus` at once, then `--node-status-update-frequency` after each run ends. */
async function refreshLoop(ctx: ControllerContext, syncer: NodeSyncer): Promise<void> {
  while (!ctx.signal.aborted) {
    try {
      await syncer.updateNodeStatus();
    } catch (err) {
      ctx.logger.error(`address refresh failed: ${errorText(err)}`);
    }
    await ctx.clock.sleep(ctx.options.nodeStatusUpdateFrequencyMs, ctx.signal);
  }
}

/** One queue item; a sync cut short by shutdown is not an error worth logging. */
async function sync(syncer: NodeSyncer, name: string, signal: AbortSignal): Promise<undefined> {
  try {
    await syncer.syncNode(name);
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  return undefined;
}
