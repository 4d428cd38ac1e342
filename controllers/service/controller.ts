/**
 * The service (load balancer) controller's runner (upstream: controllers/service/controller.go): informer events become
 * queue keys, workers call the sync sequences of `sync.ts`, and their results become forget / fixed delay / back-off.
 * All decisions live in `plan.ts`, `predicates.ts` and `sync.ts`; this file only wires them to the API, the queues and
 * the metrics.
 */
import { Resources } from "../../kube/client-types.ts";
import { type Informer, waitForCacheSync } from "../../kube/informer.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { objectReference } from "../../platform/events.ts";
import type { LoadBalancer } from "../../providers/cloud.ts";
import type { ControllerContext, StartController, StartResult } from "../context.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { serviceControllerRateLimiter } from "../runtime/rate-limiters.ts";
import { runWorkers, SyncResult } from "../runtime/run-workers.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { ServiceCache } from "./cache.ts";
import { pendingLoadBalancersMetric } from "./pending-metric.ts";
import { classifySyncResult, enqueueOnAdd, enqueueOnNodeUpdate, enqueueOnUpdate, serviceKey } from "./plan.ts";
import { type ServiceSyncDeps, syncNodes, syncService } from "./sync.ts";

/** Upstream's `serviceSyncPeriod`: the Service informer's resync. */
export const SERVICE_RESYNC_MS = 30_000;

/** Upstream's reason for skipping the controller when the provider has no `LoadBalancer`. */
export const NO_LOAD_BALANCERS = "the cloud provider does not support external load balancers";

const METRIC_NAME = "service";
/** The node queue's only key. */
const NODE_SYNC_KEY = "nodes";
const COMPONENT = "service-controller";

/**
 * Starts the service controller, or declines when the provider does not offer load balancers. Handlers are
 * registered at once (the manager starts the informers after every start function returned); the workers start
 * once both caches have synced.
 *
 * Resync: the Service informer is resynced every 30s for this controller alone — its own timer re-delivers the
 * cached Services to its own update handler, so other users of the shared informer see nothing. A resync only
 * enqueues Services that still need cleanup. The node informer's 100s resync is not reproduced: a resync delivers
 * identical old and new nodes, for which `enqueueOnNodeUpdate` never enqueues, so it would do nothing.
 */
export const startServiceController: StartController = (ctx): StartResult => {
  const loadBalancer = ctx.provider.loadBalancer;
  if (!loadBalancer) return { started: false, reason: NO_LOAD_BALANCERS };

  const { logger, signal, clock } = ctx;
  const services = ctx.informers.forResource<Service>(Resources.services);
  const nodes = ctx.informers.forResource<Node>(Resources.nodes);
  const serviceQueue = new WorkQueue<string>({
    name: "service",
    clock,
    rateLimiter: serviceControllerRateLimiter<string>(),
    registry: ctx.registry,
  });
  const nodeQueue = new WorkQueue<string>({
    name: "node",
    clock,
    rateLimiter: serviceControllerRateLimiter<string>(),
    registry: ctx.registry,
  });

  // A Service of a class served elsewhere is never enqueued: another implementation owns it, finalizer and all.
  const classes = loadBalancer.classes;
  const onServiceUpdate = (old: Service, cur: Service) => {
    const why = enqueueOnUpdate(old, cur, classes);
    if (why !== undefined) enqueueService(cur, why);
  };
  const enqueueService = (svc: Service, why: string) => {
    const key = serviceKey(svc);
    logger.debug(`enqueue service ${key}: ${why}`);
    serviceQueue.add(key);
  };
  // Every node item syncs every Service (its key is ignored), so all node events share one key: a burst of them
  // (the initial list of N nodes) coalesces into one sync, plus one more for events that arrive while it runs.
  // A key per node ran N full syncs back to back, O(Services × Nodes²) at start-up.
  const enqueueNode = () => nodeQueue.add(NODE_SYNC_KEY);
  const removeHandlers = [
    services.addEventHandler({
      onAdd: (svc) => {
        const why = enqueueOnAdd(svc, classes);
        if (why !== undefined) enqueueService(svc, why);
      },
      onUpdate: onServiceUpdate,
      // Deletion arrives as an update setting deletionTimestamp (our finalizer holds the object).
    }),
    nodes.addEventHandler({
      onAdd: enqueueNode,
      onUpdate: (old, cur) => {
        if (enqueueOnNodeUpdate(old, cur) !== undefined) enqueueNode();
      },
      onDelete: enqueueNode,
    }),
  ];

  const running = ctx.metrics.runningManagedControllers.labels({ name: METRIC_NAME, manager: MANAGER_NAME });
  running.set(1);
  const unwatch = pendingLoadBalancersMetric(ctx.registry).watch(services, classes);
  const deps = syncDeps(ctx, loadBalancer, services, nodes);
  const done = (async () => {
    try {
      if (!(await waitForCacheSync([services, nodes], signal))) return;
      logger.info("caches synced; starting service and node workers");
      await Promise.all([
        runWorkers(serviceQueue, ctx.options.concurrentServiceSyncs, (key) => serviceWorker(deps, key), signal),
        runWorkers(nodeQueue, 1, () => nodeWorker(deps, ctx.options.concurrentServiceSyncs, serviceQueue), signal),
        resyncLoop(ctx, services, onServiceUpdate),
      ]);
    } finally {
      serviceQueue.shutDown();
      nodeQueue.shutDown();
      for (const remove of removeHandlers) remove();
      unwatch();
      running.set(0);
      logger.info("service controller stopped");
    }
  })();
  return { started: true, done };
};

function syncDeps(
  ctx: ControllerContext,
  loadBalancer: LoadBalancer,
  services: Informer<Service>,
  nodes: Informer<Node>,
): ServiceSyncDeps {
  const recorder = ctx.recorder(COMPONENT);
  const m = ctx.metrics;
  return {
    loadBalancer,
    clusterName: ctx.options.clusterName,
    signal: ctx.signal,
    fence: ctx.fence,
    logger: ctx.logger,
    cache: new ServiceCache(),
    getService: (namespace, name) => services.get(namespace ? `${namespace}/${name}` : name),
    listNodes: () => nodes.list(),
    patchService: async (svc, patch) => {
      const namespace = svc.metadata?.namespace;
      await ctx.client.patch(Resources.services, svc.metadata?.name ?? "", "strategic", patch, {
        ...(namespace ? { namespace } : {}),
        subresource: "status",
        signal: ctx.signal,
        metadataOnly: true,
      });
    },
    recordEvent: (svc, e) => recorder.event(objectReference(Resources.services, svc), e.type, e.reason, e.message),
    metrics: {
      loadBalancerSync: () => m.serviceLoadBalancerSync.inc(),
      nodeSyncError: () => m.serviceNodeSyncErrors.inc(),
      updateHostLatency: (s) => m.serviceUpdateLoadBalancerHostLatency.observe(s),
      nodeSyncLatency: (s) => m.serviceNodeSyncLatency.observe(s),
    },
  };
}

/** One service key: success → forget; a `RetryError` → again after exactly its delay; else → back-off. */
async function serviceWorker(deps: ServiceSyncDeps, key: string): Promise<SyncResult> {
  let error: unknown;
  try {
    await syncService(deps, key);
  } catch (err) {
    error = err ?? new Error("sync failed");
  }
  const outcome = classifySyncResult(error);
  switch (outcome.kind) {
    case "success":
      return SyncResult.ok;
    case "retryAfter":
      deps.logger.info(`error syncing service ${key}, retrying in ${outcome.delayMs}ms: ${messageOf(error)}`);
      return SyncResult.retryAfter(outcome.delayMs);
    case "rateLimited":
      deps.logger.error(`error processing service ${key} (retrying with exponential backoff): ${messageOf(error)}`);
      return SyncResult.rateLimited;
  }
}

/** A node-queue item (its key does not matter): bring every cached load balancer onto the current node set. */
async function nodeWorker(deps: ServiceSyncDeps, workers: number, serviceQueue: WorkQueue<string>) {
  for (const key of await syncNodes(deps, workers)) serviceQueue.add(key);
  return SyncResult.ok;
}

/** This controller's own 30s resync of the Service informer (see `startServiceController`). */
async function resyncLoop(
  ctx: ControllerContext,
  services: Informer<Service>,
  onUpdate: (old: Service, cur: Service) => void,
): Promise<void> {
  while (!ctx.signal.aborted) {
    await ctx.clock.sleep(SERVICE_RESYNC_MS, ctx.signal);
    if (ctx.signal.aborted) return;
    for (const svc of services.list()) onUpdate(svc, svc);
  }
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
