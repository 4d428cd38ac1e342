/** The cloud-node controller (spec d.1): its runner, and the planners and cloud gathering it is built on. */
export {
  CloudGateAbortedError,
  DEFAULT_CONCURRENT_NODE_SYNCS,
  effectiveNodeSyncWorkers,
  gateProvider,
  MAX_DEFAULT_NODE_SYNC_WORKERS,
} from "./cloud-gate.ts";
export { CLOUD_NODE_COMPONENT, CLOUD_NODE_METRIC_NAME, NODES_QUEUE, startCloudNodeController } from "./controller.ts";
export {
  FallbackLookupError,
  InstanceMetadataError,
  LabelUpdateError,
  MissingProviderIDError,
  ProvidedNodeIPError,
} from "./errors.ts";
export {
  cloudNodeUnsupported,
  fetchInitializationMetadata,
  forEachLimited,
  getInstanceMetadata,
  getInstanceNodeAddresses,
  getRefreshMetadata,
  type RefreshAnswer,
  type RefreshOptions,
  type Warn,
} from "./metadata.ts";
export {
  addToNodeAddresses,
  getNodeAddressesFromNodeIP,
  NodeIPNotInCloudError,
  NodeIPParseError,
  nodeAddressesChangeDetected,
  parseProvidedNodeIP,
} from "./node-ip.ts";
export {
  type AddressPlan,
  applyModifiers,
  awaitingInitialization,
  type InitializationPlan,
  isReservedLabel,
  type NodeModifier,
  planAddressUpdate,
  planInitialization,
  planLabelReconciliation,
  RECONCILED_LABELS,
  SYNCED_EVENT,
} from "./plan.ts";
export { getInstanceProviderID, NO_INSTANCES_MESSAGE } from "./provider-id.ts";
export { classifyStuck, type NodeEventSpec, type StuckCause, StuckReasons } from "./stuck.ts";
