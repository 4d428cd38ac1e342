/**
 * Which Services and Nodes the service controller acts on (upstream: controllers/service/controller.go). Eligibility
 * predicates come in pairs: a named disqualifier that returns the reason (for the log line) or `undefined`, and the
 * boolean the rules use. Service predicates take the provider's `LoadBalancer.classes`; absent, they are upstream's.
 */
import type { Node, Service, ServicePort } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import type { LoadBalancerClasses } from "../../providers/cloud.ts";
import { foreignClass } from "../../providers/load-balancer-classes.ts";
import { hasLBFinalizer } from "./helpers.ts";

// ---------------------------------------------------------------------------------------------------------------
// Services

/**
 * Why the Service is not ours to give a load balancer, or `undefined` when it is: `type: LoadBalancer` and a class
 * the provider serves (`classes` absent: no class at all, upstream's rule).
 */
export function notOurLoadBalancer(svc: Service, classes?: LoadBalancerClasses): string | undefined {
  const type = svc.spec?.type ?? "";
  if (type !== "LoadBalancer") return `type is ${JSON.stringify(type)}, not LoadBalancer`;
  return foreignClass(svc, classes);
}

/** `type: LoadBalancer` and a class the provider serves. */
export const wantsLoadBalancer = (svc: Service, classes?: LoadBalancerClasses): boolean =>
  notOurLoadBalancer(svc, classes) === undefined;

export const hasFinalizer = hasLBFinalizer;

/**
 * Why the Service's load balancer must be cleaned up, or `undefined`. Needs our finalizer. When the provider
 * declares `classes`, a Service of a class it does not serve is never ours to clean up: the finalizer is the same
 * string for every manager, so there it belongs to the implementation of that class.
 */
export function cleanupReason(svc: Service, classes?: LoadBalancerClasses): string | undefined {
  if (!hasLBFinalizer(svc)) return undefined;
  if (classes !== undefined && foreignClass(svc, classes) !== undefined) return undefined;
  if (svc.metadata?.deletionTimestamp) return "the Service is being deleted";
  const type = svc.spec?.type ?? "";
  if (type !== "LoadBalancer") return `the Service holds the finalizer but its type is ${JSON.stringify(type)}`;
  return undefined;
}

/**
 * Has the finalizer and (is being deleted or is no longer `type: LoadBalancer`). A LoadBalancer Service that
 * gained a `loadBalancerClass` does not "need cleanup", but no longer wants a load balancer either.
 */
export const needsCleanup = (svc: Service, classes?: LoadBalancerClasses): boolean =>
  cleanupReason(svc, classes) !== undefined;

const isNil = (v: unknown): v is null | undefined => v === undefined || v === null;

/**
 * Go `reflect.DeepEqual` over JSON values: absent (`undefined`/`null`) is nil and differs from `[]` and `{}`.
 */
export function strictDeepEqual(a: unknown, b: unknown): boolean {
  if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => strictDeepEqual(x, b[i]));
  }
  if (typeof a === "object" && typeof b === "object") {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const k of keys) if (!strictDeepEqual(ra[k], rb[k])) return false;
    return true;
  }
  return a === b;
}

/** Go's zero-valued view of an IntOrString: absent is the integer 0; `80` and `"80"` differ. */
const targetPortKey = (p: ServicePort): string => {
  const t = p.targetPort;
  return typeof t === "string" ? `s:${t}` : `i:${t ?? 0}`;
};

function portsDiffer(a: readonly ServicePort[], b: readonly ServicePort[]): boolean {
  if (a.length !== b.length) return true;
  return a.some((x, i) => {
    const y = b[i] as ServicePort;
    return (
      (x.name ?? "") !== (y.name ?? "") ||
      (x.protocol ?? "") !== (y.protocol ?? "") ||
      x.port !== y.port ||
      (x.nodePort ?? 0) !== (y.nodePort ?? 0) ||
      targetPortKey(x) !== targetPortKey(y) ||
      !strictDeepEqual(x.appProtocol, y.appProtocol)
    );
  });
}

/**
 * Which of upstream's twelve `needsUpdate` rules fires first, or `undefined` when the change does not concern the
 * load balancer (labels, finalizers, status, allocateLoadBalancerNodePorts, ipFamilyPolicy, …).
 */
export function updateReason(old: Service, cur: Service, classes?: LoadBalancerClasses): string | undefined {
  const oldWants = wantsLoadBalancer(old, classes);
  const curWants = wantsLoadBalancer(cur, classes);
  if (!oldWants && !curWants) return undefined;
  if (oldWants !== curWants) return `wants a load balancer changed from ${oldWants} to ${curWants}`;
  const o = old.spec ?? {};
  const c = cur.spec ?? {};
  if (!strictDeepEqual(o.loadBalancerSourceRanges, c.loadBalancerSourceRanges)) {
    return "loadBalancerSourceRanges changed";
  }
  if (portsDiffer(o.ports ?? [], c.ports ?? [])) return "ports changed";
  if ((o.sessionAffinity ?? "") !== (c.sessionAffinity ?? "")) return "sessionAffinity changed";
  if (!strictDeepEqual(o.sessionAffinityConfig, c.sessionAffinityConfig)) return "sessionAffinityConfig changed";
  if ((o.loadBalancerIP ?? "") !== (c.loadBalancerIP ?? "")) return "loadBalancerIP changed";
  const oIPs = o.externalIPs ?? [];
  const cIPs = c.externalIPs ?? [];
  if (oIPs.length !== cIPs.length) return "externalIPs count changed";
  if (oIPs.some((ip, i) => ip !== cIPs[i])) return "externalIPs changed";
  if (!strictDeepEqual(old.metadata?.annotations, cur.metadata?.annotations)) return "annotations changed";
  if ((old.metadata?.uid ?? "") !== (cur.metadata?.uid ?? "")) return "UID changed";
  if ((o.externalTrafficPolicy ?? "") !== (c.externalTrafficPolicy ?? "")) return "externalTrafficPolicy changed";
  if ((o.healthCheckNodePort ?? 0) !== (c.healthCheckNodePort ?? 0)) return "healthCheckNodePort changed";
  if ((o.ipFamilies ?? []).length !== (c.ipFamilies ?? []).length) return "ipFamilies count changed";
  return undefined;
}

/** Upstream `needsUpdate(old, new)`: the informer's update handler enqueues when this (or needsCleanup) holds. */
export const needsUpdate = (old: Service, cur: Service, classes?: LoadBalancerClasses): boolean =>
  updateReason(old, cur, classes) !== undefined;

// ---------------------------------------------------------------------------------------------------------------
// Nodes

/** Go `strconv.ParseBool`; `undefined` for anything else (including the empty string). */
export function parseGoBool(value: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

/** Why the exclusion label keeps the node out of load balancers, or `undefined` when it is included. */
export function excludedByLabel(node: Node): string | undefined {
  const key = Labels.excludeFromExternalLoadBalancers;
  const labels = node.metadata?.labels;
  if (!labels || !Object.hasOwn(labels, key)) return undefined;
  const value = labels[key] ?? "";
  const parsed = parseGoBool(value);
  if (parsed === undefined) return `label ${key}=${JSON.stringify(value)} is not a boolean (read as excluded)`;
  return parsed ? `labelled ${key}=${value}` : undefined;
}

/** Why the node is tainted for removal by the cluster autoscaler (key only), or `undefined`. */
export function taintedForDeletion(node: Node): string | undefined {
  const found = node.spec?.taints?.some((t) => t.key === Taints.toBeDeletedByClusterAutoscaler);
  return found ? `tainted ${Taints.toBeDeletedByClusterAutoscaler}` : undefined;
}

/** Why the node is on its way out (deletionTimestamp set), or `undefined`. */
export function beingDeleted(node: Node): string | undefined {
  return node.metadata?.deletionTimestamp ? "being deleted" : undefined;
}

/** Why the node is not Ready (absent condition counts as not ready), or `undefined`. Not part of the stable set. */
export function notReady(node: Node): string | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  if (!ready) return "no Ready condition";
  return ready.status === "True" ? undefined : `Ready is ${ready.status}`;
}

export const nodeIncluded = (node: Node): boolean => excludedByLabel(node) === undefined;
export const nodeUntainted = (node: Node): boolean => taintedForDeletion(node) === undefined;
export const nodeNotDeleted = (node: Node): boolean => beingDeleted(node) === undefined;
export const nodeReady = (node: Node): boolean => notReady(node) === undefined;

/**
 * Why the node is left out of the stable node set used for every load-balancer call, or `undefined` when it is
 * in: not deleted, included, untainted — checked in that order. Readiness is deliberately not part of it.
 */
export function outsideStableSet(node: Node): string | undefined {
  return beingDeleted(node) ?? excludedByLabel(node) ?? taintedForDeletion(node);
}

export const inStableSet = (node: Node): boolean => outsideStableSet(node) === undefined;

/** The stable node set, in the given order. */
export const stableNodes = (nodes: readonly Node[]): Node[] => nodes.filter(inStableSet);

/**
 * Why a node update should trigger a sync of every load balancer, or `undefined`: the inclusion verdict flipped
 * or `spec.providerID` changed. Readiness, taints, deletion and other labels never do on their own.
 */
export function nodeSyncReason(old: Node, cur: Node): string | undefined {
  if (nodeIncluded(old) !== nodeIncluded(cur)) return "exclusion label changed the node's inclusion";
  if ((old.spec?.providerID ?? "") !== (cur.spec?.providerID ?? "")) return "providerID changed";
  return undefined;
}

export const shouldSyncUpdatedNode = (old: Node, cur: Node): boolean => nodeSyncReason(old, cur) !== undefined;

/** Same length, and the same map of node name → providerID. */
export function nodesSufficientlyEqual(a: readonly Node[], b: readonly Node[]): boolean {
  if (a.length !== b.length) return false;
  const distill = (nodes: readonly Node[]) => {
    const m = new Map<string, string>();
    for (const n of nodes) m.set(n.metadata?.name ?? "", n.spec?.providerID ?? "");
    return m;
  };
  const ma = distill(a);
  const mb = distill(b);
  if (ma.size !== mb.size) return false;
  for (const [name, id] of ma) if (mb.get(name) !== id) return false;
  return true;
}
