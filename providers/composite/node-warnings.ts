/**
 * The reasons of the Warning events on Nodes the composite keeps instead of letting the framework delete or taint
 * them (a part that cannot be reached, a Node no part owns), written through the runtime handle's recorder.
 */

export const NodeWarningReasons = {
  /** The part that owns the Node (or that must be asked first) failed to answer. */
  unavailable: "CloudProviderUnavailable",
  /** No configured part owns the Node: its provider ID's scheme is no part's, or no part finds it by name. */
  unowned: "CloudProviderUnknown",
} as const;

export type NodeWarningReason = (typeof NodeWarningReasons)[keyof typeof NodeWarningReasons];
