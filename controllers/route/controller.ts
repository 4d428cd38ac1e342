/**
 * The route controller's runner (upstream: route_controller.go `Run`): after the node cache syncs, reconcile the
 * cloud's routes with the nodes' pod CIDRs periodically, or — with the
 * `CloudControllerManagerWatchBasedRoutesReconciliation` gate — whenever a node change calls for it. The reconcile pass
 * itself lives in `sync.ts`.
 */
import { Resources } from "../../kube/client-types.ts";
import { type Informer, waitForCacheSync } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import type { Cidr } from "../../net/cidr.ts";
import type { Routes } from "../../providers/cloud.ts";
import { type ControllerContext, ControllerStartError, type StartController, type StartResult } from "../context.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { bucketRateLimiter, type RateLimiter } from "../runtime/rate-limiters.ts";
import { retryOnConflict } from "../runtime/retry.ts";
import { runWorkers, SyncResult } from "../runtime/run-workers.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { ClusterCIDRError, parseClusterCIDRs } from "./cluster-cidr.ts";
import { networkConditionPatch } from "./plan.ts";
import { type RouteSyncDeps, reconcileNodeRoutes } from "./sync.ts";

export const WATCH_BASED_ROUTES_GATE = "CloudControllerManagerWatchBasedRoutesReconciliation";

/** Why the controller does not start (upstream's two start rules, and our answer to the empty `--cluster-cidr`). */
export const RouteDeclines = {
  notConfigured: "will not configure cloud provider routes: --configure-cloud-routes=false",
  noRoutes:
    "configure-cloud-routes is set, but cloud provider does not support routes. Will not configure cloud provider routes.",
  noClusterCIDR:
    "--cluster-cidr is empty, so cloud routes cannot be configured: set --cluster-cidr to the cluster's pod CIDR(s), or --configure-cloud-routes=false to turn route configuration off",
} as const;

const METRIC_NAME = "route";
const COMPONENT = "route_controller";
/** The single key of the watch-based queue: every run reconciles everything. */
const ROUTES_KEY = "routes";
const MAX_QUEUE_DELAY_MS = 10_000;

/**
 * Starts the route controller or declines. Declining is never fatal, including — unlike upstream, which exits —
 * for an empty `--cluster-cidr`. Any other invalid `--cluster-cidr` throws `ControllerStartError` with
 * upstream's message, which stops the manager.
 */
export const startRouteController: StartController = (ctx): StartResult => {
  const { options, logger } = ctx;
  if (!options.configureCloudRoutes) {
    logger.info("Will not configure cloud provider routes, --configure-cloud-routes: false");
    return { started: false, reason: RouteDeclines.notConfigured };
  }
  const routes = ctx.provider.routes;
  if (!routes) return { started: false, reason: RouteDeclines.noRoutes };
  if (options.clusterCIDR.trim() === "") return { started: false, reason: RouteDeclines.noClusterCIDR };
  let clusterCIDRs: Cidr[];
  try {
    clusterCIDRs = parseClusterCIDRs(options.clusterCIDR);
  } catch (err) {
    if (err instanceof ClusterCIDRError) throw new ControllerStartError(err.message, { cause: err });
    throw err;
  }

  const nodes = ctx.informers.forResource<Node>(Resources.nodes);
  const deps = syncDeps(ctx, routes, clusterCIDRs, nodes);
  const watchBased = options.featureGates.get(WATCH_BASED_ROUTES_GATE) === true;
  const running = ctx.metrics.runningManagedControllers.labels({ name: METRIC_NAME, manager: MANAGER_NAME });
  running.set(1);
  const mode = watchBased ? watchMode(ctx, deps, nodes) : undefined;
  const done = (async () => {
    try {
      if (!(await waitForCacheSync([nodes], ctx.signal))) return;
      logger.info(`caches synced; reconciling routes ${watchBased ? "on node changes" : "periodically"}`);
      await (mode ? mode.run() : periodic(ctx, deps));
    } finally {
      mode?.stop();
      running.set(0);
      logger.info("route controller stopped");
    }
  })();
  return { started: true, done };
};

function syncDeps(
  ctx: ControllerContext,
  routes: Routes,
  clusterCIDRs: readonly Cidr[],
  nodes: Informer<Node>,
): RouteSyncDeps {
  const recorder = ctx.recorder(COMPONENT);
  const { client, clock, signal } = ctx;
  return {
    routes,
    clusterName: ctx.options.clusterName,
    clusterCIDRs,
    signal,
    fence: ctx.fence,
    logger: ctx.logger,
    now: clock.now,
    listNodes: () => nodes.list(),
    setNetworkCondition: async (node, condition) => {
      const name = node.metadata?.name ?? "";
      const patch = networkConditionPatch(condition);
      await retryOnConflict(
        () =>
          client.patch(Resources.nodes, name, "strategic", patch, {
            subresource: "status",
            signal,
            metadataOnly: true,
          }),
        { attempts: 5, baseMs: 100, sleep: clock.sleep, signal },
      );
    },
    recordEvent: (ref, e) => recorder.event(ref, e.type, e.reason, e.message),
    onReconcile: () => ctx.metrics.routeSync.inc(),
  };
}

async function reconcileOnce(deps: RouteSyncDeps): Promise<void> {
  const result = await reconcileNodeRoutes(deps);
  deps.logger.debug(
    `routes reconciled: ${result.created.length} created, ${result.deleted.length} deleted, ${result.failedCreates.length + result.failedDeletes.length} failed`,
  );
}

/** Default mode: reconcile now, then every period measured start to start (a long pass is not followed by a wait). */
async function periodic(ctx: ControllerContext, deps: RouteSyncDeps): Promise<void> {
  const period = ctx.options.routeReconciliationPeriodMs;
  while (!ctx.signal.aborted) {
    const started = ctx.clock.now();
    try {
      await reconcileOnce(deps);
    } catch (err) {
      ctx.logger.error(`Couldn't reconcile node routes: ${messageOf(err)}`);
    }
    const wait = started + period - ctx.clock.now();
    if (wait > 0) await ctx.clock.sleep(wait, ctx.signal);
  }
}

/** Upstream's watch-based limiter: one token per 10s, burst 1, and no delay ever longer than 10s. */
export function routesRateLimiter(now: () => number): RateLimiter<string> {
  const bucket = bucketRateLimiter<string>(0.1, 1, now);
  return {
    when: (item) => Math.min(MAX_QUEUE_DELAY_MS, bucket.when(item)),
    forget: (item) => bucket.forget(item),
    numRequeues: (item) => bucket.numRequeues(item),
  };
}

/** Does a node update call for a reconcile? A resync (same resourceVersion), or new pod CIDRs or addresses. */
export function routeRelevantUpdate(old: Node, cur: Node): boolean {
  if (old.metadata?.resourceVersion === cur.metadata?.resourceVersion) return true;
  const same = (a: unknown, b: unknown) => Bun.deepEquals(a, b, true);
  return !same(old.spec?.podCIDRs, cur.spec?.podCIDRs) || !same(old.status?.addresses, cur.status?.addresses);
}

/**
 * Gate on: node events enqueue the single `routes` key, rate limited; one worker forgets the key before it
 * reconciles, so changes arriving during a pass schedule another; a failed pass is re-added rate limited.
 */
function watchMode(ctx: ControllerContext, deps: RouteSyncDeps, nodes: Informer<Node>) {
  const queue = new WorkQueue<string>({
    name: "Routes",
    clock: ctx.clock,
    rateLimiter: routesRateLimiter(ctx.clock.now),
    registry: ctx.registry,
  });
  const enqueue = () => queue.addRateLimited(ROUTES_KEY);
  const removeHandler = nodes.addEventHandler({
    onAdd: enqueue,
    onUpdate: (old, cur) => {
      if (routeRelevantUpdate(old, cur)) enqueue();
    },
    onDelete: enqueue,
  });
  const worker = async (key: string): Promise<SyncResult> => {
    queue.forget(key);
    try {
      await reconcileOnce(deps);
      return SyncResult.ok;
    } catch (err) {
      ctx.logger.error(`Couldn't reconcile node routes: ${messageOf(err)}`);
      return SyncResult.rateLimited;
    }
  };
  return {
    run: () => {
      // One pass after the cache syncs even without nodes, so routes of nodes deleted meanwhile are cleaned up.
      queue.add(ROUTES_KEY);
      return runWorkers(queue, 1, worker, ctx.signal);
    },
    stop: () => {
      queue.shutDown();
      removeHandler();
    },
  };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
