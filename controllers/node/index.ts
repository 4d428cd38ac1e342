/** The cloud-node controller's planners and cloud gathering (spec d.1), for its runner. */
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
