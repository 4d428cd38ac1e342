/**
 * The service controller's sync sequences (upstream `syncService` and `syncNodes`): the cloud calls in upstream's
 * order, with the Kubernetes writes and events going through functions the runner passes in. The runner owns the
 * queues and informers: it calls `syncService(key)` from a worker and hands the outcome to `classifySyncResult`,
 * and calls `syncNodes` from the single node worker, re-adding the keys it returns to the service queue.
 */
import type { ConsolaInstance } from "consola";
import { isNotFound } from "../../kube/client-types.ts";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import type { WriteFence } from "../../kube/write-fence.ts";
import type { CallContext, LoadBalancer } from "../../providers/cloud.ts";
import { ImplementedElsewhereError, isError } from "../../providers/errors.ts";
import { servesClass } from "../../providers/load-balancer-classes.ts";
import type { ServiceCache } from "./cache.ts";
import { hasLBFinalizer, loadBalancerStatusEqual } from "./helpers.ts";
import { type ServicePatch, servicePatch, withFinalizer, withLoadBalancerStatus, withoutFinalizer } from "./patch.ts";
import {
  chooseSyncPath,
  planNodeSync,
  type ServiceEvent,
  ServiceEvents,
  SyncErrors,
  type SyncPath,
  serviceKey,
  splitKey,
  updatedHostsEvent,
} from "./plan.ts";
import { stableNodes, wantsLoadBalancer } from "./predicates.ts";

/** The controller counters and histograms the sync feeds; the runner binds them to its registry. */
export interface ServiceSyncMetrics {
  /** `service_controller_loadbalancer_sync_total`: each node-triggered host update attempt. */
  loadBalancerSync?(): void;
  /** `service_controller_nodesync_error_total`: node list failure or failed host update. */
  nodeSyncError?(): void;
  /** `service_controller_update_loadbalancer_host_latency_seconds`. */
  updateHostLatency?(seconds: number): void;
  /** `service_controller_nodesync_latency_seconds`: each `syncNodes` run. */
  nodeSyncLatency?(seconds: number): void;
}

export interface ServiceSyncDeps {
  readonly loadBalancer: LoadBalancer;
  /** `--cluster-name`. */
  readonly clusterName: string;
  readonly signal: AbortSignal;
  /** The term's write fence, passed to every load-balancer call (`CallContext.fence`). */
  readonly fence?: WriteFence | undefined;
  readonly logger: ConsolaInstance;
  readonly cache: ServiceCache;
  /** The Service from the lister, `undefined` when absent. Throwing means a lister failure (logged, returned). */
  getService(namespace: string, name: string): Service | undefined | Promise<Service | undefined>;
  /** Every node from the lister. May throw. */
  listNodes(): readonly Node[] | Promise<readonly Node[]>;
  /**
   * Sends `patch` as a strategic-merge patch to the Service's `status` subresource (`svc` names it). Rejects with
   * the client's error; a NotFound on the status write is tolerated by the caller.
   */
  patchService(svc: Service, patch: ServicePatch): Promise<void>;
  /** Records an event (component `service-controller`) about `svc`. */
  recordEvent(svc: Service, event: ServiceEvent): void;
  /** Milliseconds, for latencies; defaults to `performance.now`. */
  readonly now?: () => number;
  readonly metrics?: ServiceSyncMetrics;
}

const ctxOf = (deps: ServiceSyncDeps): CallContext => ({ signal: deps.signal, fence: deps.fence });

/**
 * Upstream `syncService(key)`. Resolves on success; rejects with the error the worker classifies
 * (`classifySyncResult`). A key with more than one `/` rejects with `unexpected key format: "<key>"`.
 */
export async function syncService(deps: ServiceSyncDeps, key: string): Promise<void> {
  const { namespace, name } = splitKey(key);
  return deps.cache.exclusive(key, () => syncServiceLocked(deps, key, namespace, name));
}

async function syncServiceLocked(deps: ServiceSyncDeps, key: string, namespace: string, name: string): Promise<void> {
  let svc: Service | undefined;
  try {
    svc = await deps.getService(namespace, name);
  } catch (err) {
    deps.logger.error(`Unable to retrieve service ${key} from store:`, err);
    throw err;
  }
  if (svc === undefined) return processServiceDeletion(deps, key);
  return processServiceCreateOrUpdate(deps, structuredClone(svc), key);
}

/** The Service is gone from the lister: delete its load balancer using the cached state, if any. */
async function processServiceDeletion(deps: ServiceSyncDeps, key: string): Promise<void> {
  const cached = deps.cache.get(key);
  if (!cached) return;
  deps.logger.info(`Service ${key} has been deleted. Attempting to cleanup load balancer resources`);
  await processLoadBalancerDelete(deps, cached);
  deps.cache.delete(key);
}

/** The cache-driven delete: here `ImplementedElsewhereError` is an ordinary failure. */
async function processLoadBalancerDelete(deps: ServiceSyncDeps, svc: Service): Promise<void> {
  if (!wantsLoadBalancer(svc, deps.loadBalancer.classes)) return;
  deps.recordEvent(svc, ServiceEvents.deleting);
  try {
    await deps.loadBalancer.ensureLoadBalancerDeleted(ctxOf(deps), deps.clusterName, svc);
  } catch (err) {
    deps.recordEvent(svc, ServiceEvents.deleteFailed(err));
    throw err;
  }
  deps.recordEvent(svc, ServiceEvents.deleted);
}

async function processServiceCreateOrUpdate(deps: ServiceSyncDeps, svc: Service, key: string): Promise<void> {
  const classes = deps.loadBalancer.classes;
  const cached = deps.cache.get(key);
  // Deleted and re-created quickly without our finalizer: the old load balancer goes first.
  const recreated = cached !== undefined && (cached.metadata?.uid ?? "") !== (svc.metadata?.uid ?? "");
  if (recreated) await processLoadBalancerDelete(deps, cached);
  const path = chooseSyncPath(svc, classes, recreated ? undefined : cached);
  // The cache keeps the last state this controller served: a Service that moved to a class served elsewhere is
  // cleaned up as what it was (again on a retry, or when it disappears), never adopted as what it is now.
  if (classes === undefined || servesClass(svc, classes)) deps.cache.set(key, svc);
  else if (recreated) deps.cache.delete(key);
  if (path.op === "skip") {
    deps.logger.debug(`Service ${key} is left to another implementation: ${path.reason}`);
    return;
  }
  try {
    await syncLoadBalancerIfNeeded(deps, svc, key, path);
  } catch (err) {
    deps.recordEvent(svc, ServiceEvents.syncFailed(err));
    throw err;
  }
  if (path.op === "delete") deps.cache.delete(key);
}

async function patch(deps: ServiceSyncDeps, old: Service, updated: Service): Promise<void> {
  await deps.patchService(old, servicePatch(old, updated));
}

async function deletePath(deps: ServiceSyncDeps, svc: Service, key: string, reason: string): Promise<void> {
  const ctx = ctxOf(deps);
  let exists: boolean;
  try {
    exists = (await deps.loadBalancer.getLoadBalancer(ctx, deps.clusterName, svc)) != null;
  } catch (err) {
    throw SyncErrors.checkExists(err);
  }
  if (exists) {
    deps.logger.info(`Deleting existing load balancer for service ${key} (${reason})`);
    deps.recordEvent(svc, ServiceEvents.deleting);
    try {
      await deps.loadBalancer.ensureLoadBalancerDeleted(ctx, deps.clusterName, svc);
    } catch (err) {
      if (!isError(err, ImplementedElsewhereError)) throw SyncErrors.delete(err);
      deps.logger.debug(`Load balancer for service ${key} is implemented elsewhere; ignoring the error on deletion`);
    }
  }
  if (hasLBFinalizer(svc)) {
    try {
      await patch(deps, svc, withoutFinalizer(svc));
    } catch (err) {
      throw SyncErrors.removeFinalizer(err);
    }
  }
  deps.recordEvent(svc, ServiceEvents.deleted);
}

/** The ensure path; `undefined` when the provider says another controller owns the load balancer. */
async function ensurePath(deps: ServiceSyncDeps, svc: Service, key: string): Promise<LoadBalancerStatus | undefined> {
  deps.recordEvent(svc, ServiceEvents.ensuring);
  // The finalizer goes on before any cloud call, so a load balancer can never outlive its Service unseen.
  if (!hasLBFinalizer(svc)) {
    try {
      await patch(deps, svc, withFinalizer(svc));
    } catch (err) {
      throw SyncErrors.addFinalizer(err);
    }
  }
  let status: LoadBalancerStatus | null | undefined;
  try {
    const nodes = stableNodes(await deps.listNodes());
    if (nodes.length === 0) deps.recordEvent(svc, ServiceEvents.noNodes);
    deps.cache.setLastSyncedNodes(key, nodes);
    status = await deps.loadBalancer.ensureLoadBalancer(ctxOf(deps), deps.clusterName, svc, nodes);
  } catch (err) {
    if (isError(err, ImplementedElsewhereError)) {
      deps.logger.debug(`Load balancer for service ${key} is implemented elsewhere; nothing to do`);
      return undefined;
    }
    throw SyncErrors.ensure(err);
  }
  if (status === null || status === undefined) throw SyncErrors.nilStatus();
  deps.recordEvent(svc, ServiceEvents.ensured);
  return status;
}

/** Upstream `syncLoadBalancerIfNeeded`: the delete or ensure path, then the status write when it changed. */
async function syncLoadBalancerIfNeeded(
  deps: ServiceSyncDeps,
  svc: Service,
  key: string,
  path: Exclude<SyncPath, { op: "skip" }>,
): Promise<void> {
  const previous = svc.status?.loadBalancer;
  let next: LoadBalancerStatus;
  if (path.op === "delete") {
    await deletePath(deps, svc, key, path.reason);
    next = {};
  } else {
    const status = await ensurePath(deps, svc, key);
    if (status === undefined) return;
    next = status;
  }
  if (!loadBalancerStatusEqual(previous, next)) {
    try {
      await patch(deps, svc, withLoadBalancerStatus(svc, next));
    } catch (err) {
      // NotFound: the Service went away right after its finalizer was removed; nothing left to write.
      if (!isNotFound(err)) throw SyncErrors.updateStatus(err);
    }
  }
}

/** Runs `fn(0..count-1)` on at most `workers` concurrent loops (client-go `ParallelizeUntil`). */
async function parallelize(workers: number, count: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(workers, count)) }, loop));
}

/**
 * Upstream `syncNodes`: brings every cached Service's load balancer onto the current stable node set, `workers`
 * at a time. Returns the keys of Services whose update failed, for the runner to add to the service queue.
 */
export async function syncNodes(deps: ServiceSyncDeps, workers: number): Promise<Set<string>> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const services = deps.cache.services();
  const retry = new Set<string>();
  let changed = 0;
  await parallelize(workers, services.length, async (i) => {
    const svc = services[i];
    if (!svc) return;
    const outcome = await nodeSyncOutcome(deps, svc);
    if (outcome === "retry") retry.add(serviceKey(svc));
    if (outcome !== "unchanged") changed++;
  });
  // Upstream's line, said when a load balancer was written or failed; a pass that found every node set as it was
  // (a second node event right behind the first) says it only at debug level, so one change is one line.
  const line = `Successfully updated ${services.length - retry.size} out of ${services.length} load balancers to direct traffic to the updated set of nodes`;
  if (changed > 0) deps.logger.info(line);
  else deps.logger.debug(line);
  deps.metrics?.nodeSyncLatency?.((now() - started) / 1000);
  return retry;
}

/** One Service's node sync; true when it must be retried through the service queue. */
export async function nodeSyncService(deps: ServiceSyncDeps, svc: Service | undefined): Promise<boolean> {
  return (await nodeSyncOutcome(deps, svc)) === "retry";
}

/** What one Service's node sync did: wrote its hosts, found nothing to change, or must be retried. */
type NodeSyncOutcome = "updated" | "unchanged" | "retry";

async function nodeSyncOutcome(deps: ServiceSyncDeps, svc: Service | undefined): Promise<NodeSyncOutcome> {
  if (!svc) return "unchanged";
  const key = serviceKey(svc);
  // Under the Service's lock, with its latest cached state: the Service's own sync may have changed or dropped it.
  return deps.cache.exclusive(key, () => nodeSyncServiceLocked(deps, deps.cache.get(key)));
}

async function nodeSyncServiceLocked(deps: ServiceSyncDeps, svc: Service | undefined): Promise<NodeSyncOutcome> {
  const classes = deps.loadBalancer.classes;
  if (!svc || !wantsLoadBalancer(svc, classes)) return "unchanged";
  let all: readonly Node[];
  try {
    all = await deps.listNodes();
  } catch (err) {
    deps.logger.error("failed to retrieve node list:", err);
    deps.metrics?.nodeSyncError?.();
    return "retry";
  }
  const key = serviceKey(svc);
  const plan = planNodeSync(svc, all, deps.cache.lastSyncedNodes(key), classes);
  if (plan.action === "skip") return "unchanged";
  deps.cache.setLastSyncedNodes(key, plan.hosts);
  if (plan.action === "none") return "unchanged";
  try {
    await updateLoadBalancerHosts(deps, svc, plan.hosts);
  } catch (err) {
    deps.logger.error(`failed to update load balancer hosts for service ${key}:`, err);
    deps.metrics?.nodeSyncError?.();
    return "retry";
  }
  return "updated";
}

/**
 * `UpdateLoadBalancer` with upstream's reading of failures: `ImplementedElsewhereError` is success; otherwise it
 * is only a failure if the load balancer still exists (a failed lookup counts as "exists").
 */
async function updateLoadBalancerHosts(deps: ServiceSyncDeps, svc: Service, hosts: readonly Node[]): Promise<void> {
  const now = deps.now ?? (() => performance.now());
  const ctx = ctxOf(deps);
  const started = now();
  deps.metrics?.loadBalancerSync?.();
  try {
    await deps.loadBalancer.updateLoadBalancer(ctx, deps.clusterName, svc, hosts);
    deps.recordEvent(svc, updatedHostsEvent(hosts));
  } catch (err) {
    if (isError(err, ImplementedElsewhereError)) return;
    let exists = true;
    try {
      exists = (await deps.loadBalancer.getLoadBalancer(ctx, deps.clusterName, svc)) != null;
    } catch (lookupErr) {
      deps.logger.error(`failed to check if load balancer exists for service ${serviceKey(svc)}:`, lookupErr);
    }
    if (!exists) return;
    deps.recordEvent(svc, ServiceEvents.updateFailed(hosts, err));
    throw err;
  } finally {
    deps.metrics?.updateHostLatency?.((now() - started) / 1000);
  }
}
