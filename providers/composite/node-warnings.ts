/**
 * Warning events on Nodes the composite keeps instead of letting the framework delete or taint them (a part that
 * cannot be reached, a Node no part owns). They go through the framework's recorder: never blocking, and a repeat
 * within ten minutes counted on the event already written, so the lifecycle monitor asking every few seconds
 * leaves one event. The log line is written once per distinct warning for the same reason.
 */
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import type { ProviderRuntime } from "../cloud.ts";
import { createWarningRecorder } from "../kit/warning-events.ts";

export const NodeWarningReasons = {
  /** The part that owns the Node (or that must be asked first) failed to answer. */
  unavailable: "CloudProviderUnavailable",
  /** No configured part owns the Node: its provider ID's scheme is no part's, or no part finds it by name. */
  unowned: "CloudProviderUnknown",
} as const;

export type NodeWarningReason = (typeof NodeWarningReasons)[keyof typeof NodeWarningReasons];

export interface NodeWarnings {
  /** Queues a Warning event on `node`; never throws, never waits. */
  warn(node: Node, reason: NodeWarningReason, message: string): void;
}

/** Until `initialize` gives the composite a Kubernetes client (unit tests, `doctor`): nothing is written. */
export const silentNodeWarnings: NodeWarnings = { warn() {} };

export function createNodeWarnings(runtime: Pick<ProviderRuntime, "kube" | "logger" | "signal">): NodeWarnings {
  const { kube, logger, signal } = runtime;
  const events = createWarningRecorder<Node>({
    kube,
    logger,
    signal,
    component: "composite-cloud-provider",
    resource: Resources.nodes,
  });
  return events;
}
