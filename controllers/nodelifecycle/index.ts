/** The cloud-node-lifecycle controller (spec d.2): its runner, and the planner and cloud questions it uses. */
export {
  type CloudProbe,
  getProviderID,
  instanceExists,
  instanceShutdown,
  lifecycleUnsupported,
  type ProbeOptions,
  probeNode,
  probeNodes,
} from "./cloud.ts";
export {
  CLOUD_NODE_LIFECYCLE_COMPONENT,
  CLOUD_NODE_LIFECYCLE_METRIC_NAME,
  startCloudNodeLifecycleController,
} from "./controller.ts";
export {
  addOrUpdateTaint,
  deletingNodeEvent,
  deletingNodeFailedEvent,
  type LifecycleDecision,
  type NodeEvent,
  type NodeModifier,
  nodeReference,
  planAfterProbe,
  planReadiness,
  readyStatus,
  removeTaint,
  SHUTDOWN_TAINT,
  taintedShutdown,
  taintMatches,
  taintsEqual,
} from "./plan.ts";
