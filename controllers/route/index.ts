/** The route controller's pure heart: CIDRs, the reconcile planner, and one reconcile pass for a runner to call. */
export {
  type Cidr,
  CidrParseError,
  ClusterCIDRError,
  cidrContains,
  formatCIDR,
  parseCIDR,
  parseClusterCIDRs,
} from "./cidr.ts";
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
