/** The cloud-node-lifecycle controller's planner and cloud questions (spec d.2), for its runner. */
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
