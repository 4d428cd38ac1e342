/**
 * The service controller's decisions as data: which path a sync takes, the events it records (exact
 * reasons and messages), how its errors are worded and wrapped, how a worker treats the result, and what a node
 * change means for one Service's load balancer. No I/O; `sync.ts` sequences the cloud calls around these.
 */
import type { Node, Service } from "../../kube/objects.ts";
import { goQuote, goStringSlice } from "../../platform/go-format.ts";
import type { LoadBalancerClasses } from "../../providers/cloud.ts";
import { findInCauseChain, RetryError } from "../../providers/errors.ts";
import { foreignClass, servesClass } from "../../providers/load-balancer-classes.ts";
import {
  cleanupReason,
  nodeSyncReason,
  nodesSufficientlyEqual,
  notOurLoadBalancer,
  stableNodes,
  updateReason,
  wantsLoadBalancer,
} from "./predicates.ts";

// ---------------------------------------------------------------------------------------------------------------
// Keys

/** `namespace/name`, or `name` for an object without namespace (client-go's MetaNamespaceKeyFunc). */
export function serviceKey(svc: Service): string {
  const ns = svc.metadata?.namespace ?? "";
  const name = svc.metadata?.name ?? "";
  return ns ? `${ns}/${name}` : name;
}

/** Splits a queue key; more than one `/` → `unexpected key format: "<key>"`. */
export function splitKey(key: string): { namespace: string; name: string } {
  const parts = key.split("/");
  if (parts.length === 1) return { namespace: "", name: parts[0] ?? "" };
  if (parts.length === 2) return { namespace: parts[0] ?? "", name: parts[1] ?? "" };
  throw new Error(`unexpected key format: ${goQuote(key)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Informer handlers: why a Service event enqueues its key (`undefined` = ignore). Deletes are never enqueued; a
// deletion arrives as an update that sets deletionTimestamp, or through the cache when the finalizer is missing.

// `classes` is the provider's `LoadBalancer.classes`: a Service of a class served elsewhere is never enqueued.

export function enqueueOnAdd(svc: Service, classes?: LoadBalancerClasses): string | undefined {
  if (wantsLoadBalancer(svc, classes)) return "wants a load balancer";
  return cleanupReason(svc, classes);
}

export function enqueueOnUpdate(old: Service, cur: Service, classes?: LoadBalancerClasses): string | undefined {
  return updateReason(old, cur, classes) ?? cleanupReason(cur, classes);
}

/** Why a Node event enqueues a node sync: add and delete always; an update only per `nodeSyncReason`. */
export function enqueueOnNodeUpdate(old: Node, cur: Node): string | undefined {
  return nodeSyncReason(old, cur);
}

// ---------------------------------------------------------------------------------------------------------------
// Path

export type SyncPath =
  | { readonly op: "delete"; readonly reason: string }
  | { readonly op: "ensure" }
  | { readonly op: "skip"; readonly reason: string };

/**
 * Delete when the Service does not want a load balancer or needs cleanup; ensure otherwise. When the provider
 * declares `classes`, a Service of a class it does not serve is skipped (another implementation owns it, finalizer
 * and all), unless `previous`, the state this controller last synced, was its own: then the load balancer it made
 * is cleaned up, as upstream does for a Service that stops wanting one (the API server clears the class of a
 * Service whose type leaves LoadBalancer, so a class-less manager's Service would otherwise be orphaned).
 */
export function chooseSyncPath(svc: Service, classes?: LoadBalancerClasses, previous?: Service): SyncPath {
  const cleanup = cleanupReason(svc, classes);
  if (cleanup !== undefined) return { op: "delete", reason: cleanup };
  const notOurs = notOurLoadBalancer(svc, classes);
  if (notOurs === undefined) return { op: "ensure" };
  const foreign = classes === undefined ? undefined : foreignClass(svc, classes);
  if (foreign !== undefined && !(previous && servesClass(previous, classes))) return { op: "skip", reason: foreign };
  return { op: "delete", reason: notOurs };
}

// ---------------------------------------------------------------------------------------------------------------
// Events (component `service-controller`)

export interface ServiceEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const ServiceEvents = {
  ensuring: { type: "Normal", reason: "EnsuringLoadBalancer", message: "Ensuring load balancer" },
  ensured: { type: "Normal", reason: "EnsuredLoadBalancer", message: "Ensured load balancer" },
  deleting: { type: "Normal", reason: "DeletingLoadBalancer", message: "Deleting load balancer" },
  deleted: { type: "Normal", reason: "DeletedLoadBalancer", message: "Deleted load balancer" },
  noNodes: {
    type: "Warning",
    reason: "UnAvailableLoadBalancer",
    message: "There are no available nodes for LoadBalancer",
  },
  updated: { type: "Normal", reason: "UpdatedLoadBalancer", message: "Updated load balancer with new hosts" },
  syncFailed: (err: unknown): ServiceEvent => ({
    type: "Warning",
    reason: "SyncLoadBalancerFailed",
    message: `Error syncing load balancer: ${messageOf(err)}`,
  }),
  deleteFailed: (err: unknown): ServiceEvent => ({
    type: "Warning",
    reason: "DeleteLoadBalancerFailed",
    message: `Error deleting load balancer: ${messageOf(err)}`,
  }),
  updateFailed: (hosts: readonly Node[], err: unknown): ServiceEvent => ({
    type: "Warning",
    reason: "UpdateLoadBalancerFailed",
    message: `Error updating load balancer with new hosts ${goStringSlice(loggableNodeNames(hosts))} [node names limited, total number of nodes: ${hosts.length}], error: ${messageOf(err)}`,
  }),
} as const satisfies Record<string, ServiceEvent | ((...args: never[]) => ServiceEvent)>;

/** At most 20 names: the first 20 nodes' names, sorted and unique, then `<k more>`. */
export function loggableNodeNames(nodes: readonly Node[]): string[] {
  const limit = 20;
  const names = (ns: readonly Node[]) => [...new Set(ns.map((n) => n.metadata?.name ?? ""))].sort();
  if (nodes.length <= limit) return names(nodes);
  return [...names(nodes.slice(0, limit)), `<${nodes.length - limit} more>`];
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

/**
 * A sync step failed: `<step>: <underlying message>`. Where upstream wraps with `%w` (only "failed to ensure load
 * balancer") the underlying error is the `cause`, so a `RetryError` inside still asks for a fixed delay. Elsewhere
 * upstream formats with `%v`, which hides the chain: the error is kept in `underlying` for logs but not as
 * `cause`, so a `RetryError` there gets exponential back-off, as upstream.
 */
export class ServiceSyncError extends Error {
  override readonly name = "ServiceSyncError";
  readonly underlying: unknown;
  constructor(step: string, underlying: unknown, opts: { keepChain: boolean }) {
    super(`${step}: ${messageOf(underlying)}`, opts.keepChain ? { cause: underlying } : undefined);
    this.underlying = underlying;
  }
}

export const SyncErrors = {
  checkExists: (err: unknown) =>
    new ServiceSyncError("failed to check if load balancer exists before cleanup", err, { keepChain: false }),
  delete: (err: unknown) => new ServiceSyncError("failed to delete load balancer", err, { keepChain: false }),
  removeFinalizer: (err: unknown) =>
    new ServiceSyncError("failed to remove load balancer cleanup finalizer", err, { keepChain: false }),
  addFinalizer: (err: unknown) =>
    new ServiceSyncError("failed to add load balancer cleanup finalizer", err, { keepChain: false }),
  ensure: (err: unknown) => new ServiceSyncError("failed to ensure load balancer", err, { keepChain: true }),
  nilStatus: () => new Error("service status returned by EnsureLoadBalancer is nil"),
  updateStatus: (err: unknown) =>
    new ServiceSyncError("failed to update load balancer status", err, { keepChain: false }),
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Worker result

export type WorkerOutcome =
  | { readonly kind: "success" }
  | { readonly kind: "retryAfter"; readonly delayMs: number; readonly error: unknown }
  | { readonly kind: "rateLimited"; readonly error: unknown };

/**
 * What the service worker does with a sync's result: success → forget; a `RetryError` anywhere in the cause chain
 * → re-add after exactly its delay (no back-off increment); anything else → rate-limited re-add (5s … 300s).
 */
export function classifySyncResult(error: unknown): WorkerOutcome {
  if (error === undefined) return { kind: "success" };
  const retry = findInCauseChain(error, RetryError);
  if (retry) return { kind: "retryAfter", delayMs: retry.retryAfterMs, error };
  return { kind: "rateLimited", error };
}

// ---------------------------------------------------------------------------------------------------------------
// Node sync

export type NodeSyncPlan =
  | { readonly action: "skip"; readonly reason: string }
  | { readonly action: "none"; readonly hosts: readonly Node[] }
  | { readonly action: "update"; readonly hosts: readonly Node[] };

/**
 * One Service's share of a node sync. `hosts` is the new stable node set, to be recorded as the Service's last
 * synced nodes *before* calling the cloud (a failure is retried through the service queue, not the next node
 * sync). The previous set is re-filtered by the nodes' recorded state before comparing.
 */
export function planNodeSync(
  svc: Service | undefined,
  allNodes: readonly Node[],
  lastSynced: readonly Node[],
  classes?: LoadBalancerClasses,
): NodeSyncPlan {
  if (!svc) return { action: "skip", reason: "no cached Service" };
  const notOurs = notOurLoadBalancer(svc, classes);
  if (notOurs !== undefined) return { action: "skip", reason: notOurs };
  const hosts = stableNodes(allNodes);
  const before = stableNodes(lastSynced);
  return nodesSufficientlyEqual(before, hosts) ? { action: "none", hosts } : { action: "update", hosts };
}

/** The event after a successful host update: a warning when no host is left. */
export function updatedHostsEvent(hosts: readonly Node[]): ServiceEvent {
  return hosts.length === 0 ? ServiceEvents.noNodes : ServiceEvents.updated;
}
