/**
 * The route controller: its runner (`startRouteController`) and its pure heart — the `--cluster-cidr` flag, the
 * reconcile planner, and one reconcile pass. CIDRs themselves live in `net/cidr.ts`.
 */
export { ClusterCIDRError, parseClusterCIDRs } from "./cluster-cidr.ts";
export {
  RouteDeclines,
  routeRelevantUpdate,
  routesRateLimiter,
  startRouteController,
  WATCH_BASED_ROUTES_GATE,
} from "./controller.ts";
export {
  failedToCreateRouteEvent,
  networkConditionPatch,
  networkUnavailableCondition,
  nodeReference,
  notResponsibleForRoute,
  planRoutes,
  type RouteAction,
  type RouteCreate,
  type RouteDelete,
  type RouteEvent,
  type RoutePlan,
  routesCreatedByNode,
} from "./plan.ts";
export {
  MAX_CONCURRENT_ROUTE_OPERATIONS,
  type RouteSyncDeps,
  type RouteSyncResult,
  reconcileNodeRoutes,
  reconcileRoutes,
} from "./sync.ts";
