/**
 * hccm's Warning events on Robot Nodes, with its reasons, through the framework's event recorder (never blocking; a
 * repeat within ten minutes counted on the event already written, so a finding made on every metadata refresh
 * stays one event). Each is logged as a warning too, as hccm does. Until `initialize` hands over a Kubernetes client
 * (`doctor`, tests), `logOnly` says them in the log alone.
 */
import type { ConsolaInstance } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import type { ProviderRuntime } from "../cloud.ts";
import { createWarningRecorder } from "../kit/warning-events.ts";

export const RobotNodeReasons = {
  /** One of the kubelet's InternalIPs is not forwarded: of the other family, or already an ExternalIP. */
  misconfiguredInternalIP: "MisconfiguredInternalIP",
  /** The Robot server of the Node's provider ID now carries another name (CAPH reused it): the Node counts as gone. */
  possibleNodeDeletion: "PossibleNodeDeletion",
} as const;

export type RobotNodeReason = (typeof RobotNodeReasons)[keyof typeof RobotNodeReasons];

export interface NodeWarnings {
  /** Queues a Warning event on `node` and logs it; never throws, never waits. */
  warn(node: Node, reason: RobotNodeReason, message: string): void;
}

const describe = (node: Node) => `node "${node.metadata?.name ?? "(unnamed)"}"`;

export const logOnly = (logger: ConsolaInstance | undefined): NodeWarnings => ({
  warn: (node, _reason, message) => logger?.warn(`${describe(node)}: ${message}`),
});

export interface NodeWarningsOptions extends Pick<ProviderRuntime, "kube" | "logger" | "signal"> {
  /** The events' `source.component`. */
  readonly component: string;
  readonly now?: () => number;
}

export function createNodeWarnings(options: NodeWarningsOptions): NodeWarnings {
  return createWarningRecorder<Node>({ ...options, resource: Resources.nodes });
}
