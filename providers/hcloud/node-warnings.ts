/**
 * hccm's reasons for its Warning events on Robot Nodes. The events go through the provider's runtime handle
 * (kit/runtime-handle.ts): logged too, as hccm does, and only logged until `initialize` hands over a client.
 */

export const RobotNodeReasons = {
  /** One of the kubelet's InternalIPs is not forwarded: of the other family, or already an ExternalIP. */
  misconfiguredInternalIP: "MisconfiguredInternalIP",
  /** The Robot server of the Node's provider ID now carries another name (CAPH reused it): the Node counts as gone. */
  possibleNodeDeletion: "PossibleNodeDeletion",
} as const;

export type RobotNodeReason = (typeof RobotNodeReasons)[keyof typeof RobotNodeReasons];
