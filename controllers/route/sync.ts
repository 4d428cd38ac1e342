/**
 * One reconcile pass of the route controller (upstream `reconcileNodeRoutes`): list the cloud's routes, plan,
 * delete and create with at most 200 cloud operations in flight, then bring each node's `NetworkUnavailable`
 * condition in line. Kubernetes writes and events go through the functions the runner passes in.
 */
import type { ConsolaInstance } from "consola";
import type { Node, NodeCondition, ObjectReference } from "../../kube/objects.ts";
import type { WriteFence } from "../../kube/write-fence.ts";
import type { Cidr } from "../../net/cidr.ts";
import type { CallContext, Route, Routes } from "../../providers/cloud.ts";
import { findInCauseChain, RetryError, wrapError } from "../../providers/errors.ts";
import {
  failedToCreateRouteEvent,
  networkUnavailableCondition,
  nodeReference,
  planRoutes,
  type RouteCreate,
  type RouteEvent,
  type RoutePlan,
  routesCreatedByNode,
} from "./plan.ts";

/** Upstream's `maxConcurrentRouteOperations`: deletes and creates share this many slots. */
export const MAX_CONCURRENT_ROUTE_OPERATIONS = 200;

export interface RouteSyncDeps {
  readonly routes: Routes;
  readonly clusterName: string;
  /** From `parseClusterCIDRs`; at least one. */
  readonly clusterCIDRs: readonly Cidr[];
  readonly signal: AbortSignal;
  /** The term's write fence, passed to every route call (`CallContext.fence`). */
  readonly fence?: WriteFence | undefined;
  readonly logger: ConsolaInstance;
  /** Milliseconds since the epoch; used for condition times and the elapsed time in failure events. */
  readonly now: () => number;
  /** The node lister (informer cache). May throw. */
  listNodes(): readonly Node[] | Promise<readonly Node[]>;
  /**
   * Writes the condition: strategic-merge patch `networkConditionPatch(condition)` on the node's `status`
   * subresource, retried on conflict (5 × 100ms) by the runner. A rejection is logged and the pass goes on.
   */
  setNetworkCondition(node: Node, condition: NodeCondition): Promise<void>;
  /** Records an event (component `route_controller`) about `ref`. */
  recordEvent(ref: ObjectReference, event: RouteEvent): void;
  /** Counts `route_controller_route_sync_total`. */
  onReconcile?(): void;
  /** Defaults to 200. */
  readonly maxConcurrentOperations?: number;
}

export interface RouteSyncResult {
  readonly plan: RoutePlan;
  readonly deleted: readonly Route[];
  readonly failedDeletes: readonly Route[];
  readonly created: readonly RouteCreate[];
  readonly failedCreates: readonly RouteCreate[];
  readonly conditionsWritten: readonly { node: string; condition: NodeCondition }[];
}

/** A counting semaphore: `run` waits for a slot. */
function semaphore(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * `reconcileNodeRoutes`: lists routes (error → `error listing routes: <err>`) and nodes (error →
 * `error listing nodes: <err>`), then reconciles. Reconciling itself never fails: cloud and API errors are logged,
 * failed creations leave the node `NetworkUnavailable=True` and a `FailedToCreateRoute` event.
 */
export async function reconcileNodeRoutes(deps: RouteSyncDeps): Promise<RouteSyncResult> {
  deps.onReconcile?.();
  let routes: Route[];
  try {
    routes = await deps.routes.listRoutes({ signal: deps.signal }, deps.clusterName);
  } catch (err) {
    throw wrapError("error listing routes", err);
  }
  let nodes: readonly Node[];
  try {
    nodes = await deps.listNodes();
  } catch (err) {
    throw wrapError("error listing nodes", err);
  }
  return reconcileRoutes(deps, nodes, routes);
}

/** Upstream `reconcile(nodes, routes)`. */
export async function reconcileRoutes(
  deps: RouteSyncDeps,
  nodes: readonly Node[],
  routes: readonly Route[],
): Promise<RouteSyncResult> {
  const { logger } = deps;
  const ctx: CallContext = { signal: deps.signal, fence: deps.fence };
  const plan = planRoutes(nodes, routes, deps.clusterCIDRs);
  const slot = semaphore(deps.maxConcurrentOperations ?? MAX_CONCURRENT_ROUTE_OPERATIONS);
  const deleted: Route[] = [];
  const failedDeletes: Route[] = [];
  const created: RouteCreate[] = [];
  const failedCreates: RouteCreate[] = [];

  const deletions = plan.deletes.map(({ route, reason }) =>
    slot(async () => {
      logger.info(`Deleting route ${route.name} ${route.destinationCIDR} (${reason})`);
      try {
        await deps.routes.deleteRoute(ctx, deps.clusterName, route);
        deleted.push(route);
      } catch (err) {
        failedDeletes.push(route);
        logger.error(`Could not delete route ${route.name} ${route.destinationCIDR}:`, err);
      }
    }),
  );
  if (plan.waitForDeletes) await Promise.all(deletions);

  const createdKeys = new Set<string>();
  const creations = plan.creates.map((create) => {
    const started = deps.now();
    return slot(async () => {
      try {
        await deps.routes.createRoute(ctx, deps.clusterName, create.nameHint, create.route);
        created.push(create);
        createdKeys.add(`${create.nodeName}\u0000${create.route.destinationCIDR}`);
        logger.info(`Created route for node ${create.nodeName} ${create.route.destinationCIDR}`);
      } catch (err) {
        failedCreates.push(create);
        // Not yet (the node has not reported what the cloud needs): said at info level, no Warning event; the
        // node stays NetworkUnavailable and the next pass tries again.
        const notYet = findInCauseChain(err, RetryError);
        if (notYet) {
          logger.info(
            `Waiting to create route for node ${create.nodeName} ${create.route.destinationCIDR}: ${notYet.message}`,
          );
          return;
        }
        const event = failedToCreateRouteEvent(create, deps.now() - started, err);
        const node = nodes.find((n) => n.metadata?.name === create.nodeName);
        deps.recordEvent(node ? nodeReference(node) : { apiVersion: "v1", kind: "Node", name: create.nodeName }, event);
        logger.error(event.message);
      }
    });
  });
  await Promise.all([...deletions, ...creations]);

  const conditionsWritten: { node: string; condition: NodeCondition }[] = [];
  const states = routesCreatedByNode(plan, nodes, (node, cidr) => createdKeys.has(`${node}\u0000${cidr}`));
  await Promise.all(
    states.map(async ({ node, routesCreated }) => {
      const condition = networkUnavailableCondition(node, routesCreated, deps.now());
      const name = node.metadata?.name ?? "";
      if (!condition) return;
      try {
        await deps.setNetworkCondition(node, condition);
        conditionsWritten.push({ node: name, condition });
      } catch (err) {
        logger.error(`Error updating node ${name}:`, err);
      }
    }),
  );
  return { plan, deleted, failedDeletes, created, failedCreates, conditionsWritten };
}
