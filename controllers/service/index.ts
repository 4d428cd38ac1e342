/**
 * The service (load balancer) controller: its runner (`startServiceController`) and its pure heart — predicates,
 * helpers, patches, decisions and sync sequences.
 */
export { ServiceCache } from "./cache.ts";
export { NO_LOAD_BALANCERS, SERVICE_RESYNC_MS, startServiceController } from "./controller.ts";
export {
  getLoadBalancerSourceRanges,
  getServiceHealthCheckPathPort,
  hasLBFinalizer,
  isAllowAll,
  loadBalancerStatusEqual,
  needsHealthCheck,
  requestsOnlyLocalTraffic,
  SourceRangesError,
} from "./helpers.ts";
export { type ServicePatch, servicePatch, withFinalizer, withLoadBalancerStatus, withoutFinalizer } from "./patch.ts";
export {
  chooseSyncPath,
  classifySyncResult,
  enqueueOnAdd,
  enqueueOnNodeUpdate,
  enqueueOnUpdate,
  loggableNodeNames,
  type NodeSyncPlan,
  planNodeSync,
  type ServiceEvent,
  ServiceEvents,
  ServiceSyncError,
  SyncErrors,
  type SyncPath,
  serviceKey,
  splitKey,
  type WorkerOutcome,
} from "./plan.ts";
export {
  inStableSet,
  needsCleanup,
  needsUpdate,
  nodeSyncReason,
  nodesSufficientlyEqual,
  outsideStableSet,
  shouldSyncUpdatedNode,
  stableNodes,
  updateReason,
  wantsLoadBalancer,
} from "./predicates.ts";
export { nodeSyncService, type ServiceSyncDeps, type ServiceSyncMetrics, syncNodes, syncService } from "./sync.ts";
