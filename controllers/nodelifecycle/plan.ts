/**
 * The lifecycle controller's per-node decision in `MonitorNodes`: pure, no I/O, no clock.
 *
 * For each node of the lister the runner calls `planReadiness`: Ready nodes are decided at once (drop the
 * shutdown taint if present, else nothing); NotReady ones need a `CloudProbe` (cloud.ts — `probeNodes` batches
 * them) and are then decided by `planAfterProbe`. Unchanged nodes get `none`, so a quiet cluster costs no writes.
 */
import type { Node, ObjectReference, Taint } from "../../kube/objects.ts";
import { Conditions, Taints } from "../../kube/well-known.ts";
import type { NodeModifier } from "../node/plan.ts";
import type { CloudProbe } from "./cloud.ts";

export type { NodeModifier } from "../node/plan.ts";

/** An event on a Node, with the explicit reference upstream uses (`apiVersion: v1`, empty namespace). */
export interface NodeEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
  readonly involvedObject: ObjectReference;
}

export type LifecycleDecision =
  /** No write. `error` is set when a cloud call failed (log it; the next period tries again). */
  | { readonly kind: "none"; readonly reason: string; readonly error?: unknown }
  /** NotReady node: ask the cloud (`probeNode`/`probeNodes`), then `planAfterProbe`. */
  | { readonly kind: "probe" }
  /** Remove the shutdown taint (key + NoSchedule); apply `modify` to a fresh copy and patch. */
  | { readonly kind: "removeShutdownTaint"; readonly modify: NodeModifier }
  /** Add or update the shutdown taint; `modify` leaves an identical taint alone. */
  | { readonly kind: "addShutdownTaint"; readonly taint: Taint; readonly modify: NodeModifier }
  /** Record `event`, DELETE the node; on failure record `deletingNodeFailedEvent(node, err)`. */
  | { readonly kind: "delete"; readonly event: NodeEvent };

/** The taint the lifecycle controller adds while an instance is shut down: no value, no timeAdded. */
export const SHUTDOWN_TAINT: Taint = { key: Taints.shutdown, effect: "NoSchedule" };

/** Status of the `Ready` condition; `Unknown` when the node reports none. */
export function readyStatus(node: Node): string {
  return node.status?.conditions?.find((c) => c.type === Conditions.ready)?.status ?? "Unknown";
}

/** Upstream's taint match: same key and same effect (the value is ignored). */
export function taintMatches(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** Semantic equality of taints: an absent value equals an empty one; timeAdded compares by instant. */
export function taintsEqual(a: Taint, b: Taint): boolean {
  const time = (t: Taint) => (t.timeAdded === undefined ? undefined : Date.parse(t.timeAdded));
  return taintMatches(a, b) && (a.value ?? "") === (b.value ?? "") && time(a) === time(b);
}

/** Modifier: drop every taint matching `taint` (key + effect). */
export function removeTaint(taint: Taint): NodeModifier {
  return (node) => {
    if (!node.spec?.taints) return;
    node.spec.taints = node.spec.taints.filter((t) => !taintMatches(t, taint));
  };
}

/** Modifier: replace the first taint matching `taint` when it differs, append it when none matches. */
export function addOrUpdateTaint(taint: Taint): NodeModifier {
  return (node) => {
    node.spec ??= {};
    node.spec.taints ??= [];
    const taints = node.spec.taints;
    const i = taints.findIndex((t) => taintMatches(t, taint));
    if (i < 0) taints.push({ ...taint });
    else if (!taintsEqual(taints[i]!, taint)) taints[i] = { ...taint };
  };
}

export function nodeReference(node: Node): ObjectReference {
  return {
    apiVersion: "v1",
    kind: "Node",
    name: node.metadata?.name ?? "",
    uid: node.metadata?.uid ?? "",
    namespace: "",
  };
}

export function deletingNodeEvent(node: Node): NodeEvent {
  const name = node.metadata?.name ?? "";
  return {
    type: "Normal",
    reason: "DeletingNode",
    message: `Deleting node ${name} because it does not exist in the cloud provider`,
    involvedObject: nodeReference(node),
  };
}

export function deletingNodeFailedEvent(node: Node, err: unknown): NodeEvent {
  const text = err instanceof Error ? err.message : String(err);
  return {
    type: "Warning",
    reason: "DeletingNodeFailed",
    message: `Failed deleting node ${node.metadata?.name ?? ""}: ${text}`,
    involvedObject: nodeReference(node),
  };
}

/** Predicate: the node carries a taint matching the shutdown taint. Returns the reason, if so. */
export function taintedShutdown(node: Node): string | undefined {
  const has = (node.spec?.taints ?? []).some((t) => taintMatches(t, SHUTDOWN_TAINT));
  return has ? `node has the ${Taints.shutdown}:NoSchedule taint` : undefined;
}

/**
 * First step for every node. Ready: remove the shutdown taint only if present; the cloud is never asked about
 * Ready nodes (so a Ready node is never deleted). Otherwise (`False`/`Unknown`): `probe`.
 */
export function planReadiness(node: Node): LifecycleDecision {
  if (readyStatus(node) !== "True") return { kind: "probe" };
  if (!taintedShutdown(node)) return { kind: "none", reason: "node is Ready and has no shutdown taint" };
  return { kind: "removeShutdownTaint", modify: removeTaint(SHUTDOWN_TAINT) };
}

/**
 * Second step for a NotReady node, from the cloud's answer: gone ⇒ delete (existing taints are irrelevant);
 * shut down ⇒ add the shutdown taint unless an identical one is there; running ⇒ nothing (a shutdown taint stays
 * until the node is Ready again); failures ⇒ nothing, with the error to log.
 */
export function planAfterProbe(node: Node, probe: CloudProbe): LifecycleDecision {
  // Defensive: the runner probes only NotReady nodes; never act on a Ready one whatever the cloud says.
  if (readyStatus(node) === "True") return planReadiness(node);
  switch (probe.kind) {
    case "existsFailed":
      return { kind: "none", reason: "checking whether the instance exists failed", error: probe.error };
    case "gone":
      return { kind: "delete", event: deletingNodeEvent(node) };
    case "shutdownFailed":
      return { kind: "none", reason: "checking whether the instance is shut down failed", error: probe.error };
    case "present": {
      if (!probe.shutdown) return { kind: "none", reason: "instance exists and is not shut down" };
      const current = (node.spec?.taints ?? []).find((t) => taintMatches(t, SHUTDOWN_TAINT));
      if (current && taintsEqual(current, SHUTDOWN_TAINT)) {
        return { kind: "none", reason: "instance is shut down and the node already has the shutdown taint" };
      }
      return { kind: "addShutdownTaint", taint: SHUTDOWN_TAINT, modify: addOrUpdateTaint(SHUTDOWN_TAINT) };
    }
  }
}
