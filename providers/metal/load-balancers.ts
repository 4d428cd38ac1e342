/**
 * LoadBalancer for bare metal: an address from a pool per Service, recorded on the Service, announced by someone
 * else (kube-vip, a BGP speaker, a router) that follows the Service. There are no hosts to configure, so
 * `updateLoadBalancer` does nothing.
 *
 * Uniqueness: each decision and the hold it leads to happen in one synchronous step on the shared `AddressBook`;
 * calls for one Service run one at a time (`KeyedLock`). An address is held before its record is written and is
 * let go only after a failed write or a successful removal, so a concurrent call never sees it free too early.
 * Nothing is allocated outside a leadership term (before `initialize` finished, or after its signal aborted).
 *
 * Annotations are read through the toolkit first: a Service that sets them wrongly gets one error naming each
 * problem (and so one Warning event) before anything is allocated. A request the provider resolves by picking one
 * side (the kube-vip annotation over `spec.loadBalancerIP`) is a Warning event of its own; the sync goes on.
 */
import type { ConsolaInstance } from "consola";
import { isConflict, isNotFound, type KubeClient, Resources } from "../../kube/client-types.ts";
import type { LoadBalancerStatus, Service } from "../../kube/objects.ts";
import { defaultLoadBalancerName, type LoadBalancer } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import { createWarningRecorder, type WarningRecorder } from "../kit/warning-events.ts";
import type { AddressBook, Holder } from "./address-book.ts";
import { planAllocation, sharingConflict } from "./allocator.ts";
import {
  clearPatch,
  familyWants,
  hasRecord,
  MetalServiceAnnotations,
  readRecord,
  readRequest,
  recordPatch,
  requestConflict,
  serviceKey,
} from "./annotations.ts";
import { KeyedLock } from "./keyed-lock.ts";
import type { PoolSet } from "./pools.ts";
import { holderOf } from "./rebuild.ts";

/** What a leadership term gives the load balancers: the cluster, and the signal that ends the term. */
export interface MetalSession {
  readonly kube: KubeClient;
  readonly signal: AbortSignal;
  readonly logger: ConsolaInstance;
}

export interface LoadBalancersDeps {
  readonly book: AddressBook;
  readonly pools: () => PoolSet;
  /** Undefined until `initialize` has rebuilt the book. */
  readonly session: () => MetalSession | undefined;
  /** Also write `kube-vip.io/loadbalancerIPs`. */
  readonly kubeVipAnnotation: boolean;
}

export class NotReadyError extends Error {
  override readonly name = "NotReadyError";
}

/** The `reason` of the Warning event for a kube-vip annotation and a `spec.loadBalancerIP` that disagree. */
export const conflictingRequestReason = "ConflictingAddressRequest";

export function createLoadBalancers(deps: LoadBalancersDeps): LoadBalancer {
  const lock = new KeyedLock();
  const warnings = new WeakMap<MetalSession, WarningRecorder<Service>>();

  /** The term's warnings: written with its client, stopped when it ends. */
  function warningsOf(session: MetalSession): WarningRecorder<Service> {
    let w = warnings.get(session);
    if (!w) {
      const { kube, logger, signal } = session;
      w = createWarningRecorder<Service>({
        kube,
        logger,
        signal,
        component: "metal-cloud-provider",
        resource: Resources.services,
      });
      warnings.set(session, w);
    }
    return w;
  }

  function active(): MetalSession {
    const session = deps.session();
    if (!session) throw new NotReadyError("the provider has not been initialised (allocations not rebuilt yet)");
    if (session.signal.aborted) throw new NotReadyError("the leadership term has ended; not allocating");
    return session;
  }

  async function step<T>(op: string, svc: Service, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw wrapError(`metal/load-balancers.${op} ${serviceKey(svc)}`, err);
    }
  }

  const statusOf = (ips: readonly string[]): LoadBalancerStatus => ({ ingress: ips.map((ip) => ({ ip })) });

  /** Hold the Service's own record where nobody else objects: a record written by an earlier term's last call. */
  function claimRecord(svc: Service, holder: Holder, pools: PoolSet, logger: ConsolaInstance): void {
    const record = readRecord(svc);
    if (!record) return;
    const free = record.filter((ip) => !sharingConflict(deps.book, pools, ip, holder, true));
    if (free.length < record.length) {
      logger.warn(`Service ${holder.key} records ${record.join(",")} but some are held by others; re-allocating`);
    }
    if (free.length > 0) deps.book.set(holder, free);
  }

  async function ensure(svc: Service): Promise<LoadBalancerStatus> {
    const session = active();
    const uid = svc.metadata?.uid;
    if (!uid) throw new Error("the Service has no UID");
    MetalServiceAnnotations.parse(svc);
    const conflict = requestConflict(svc);
    if (conflict) warningsOf(session).warn(svc, conflictingRequestReason, conflict);
    const key = serviceKey(svc);
    const pools = deps.pools();
    const previous = deps.book.allocationOf(key);
    // Same name, new UID: the old Service is gone, and so is its claim.
    if (previous && previous.holder.uid !== uid) deps.book.release(key);
    const holder = holderOf(svc);
    if (!deps.book.allocationOf(key)) claimRecord(svc, holder, pools, session.logger);
    const before = deps.book.allocationOf(key);
    const plan = planAllocation(deps.book, pools, {
      holder,
      wants: familyWants(svc),
      request: readRequest(svc, before?.ips),
    });
    if (!plan.ok) throw new Error(plan.message);
    deps.book.set(holder, [...new Set([...(before?.ips ?? []), ...plan.ips])]);
    const options = { kubeVip: deps.kubeVipAnnotation, serviceInterface: plan.pool?.interface };
    if (!hasRecord(svc, plan.ips, options)) {
      try {
        await session.kube.patch(
          Resources.services,
          svc.metadata?.name ?? "",
          "merge",
          recordPatch(svc, plan.ips, options),
          {
            namespace: svc.metadata?.namespace ?? "default",
            signal: session.signal,
          },
        );
      } catch (err) {
        if (before) deps.book.set(before.holder, before.ips);
        else deps.book.release(key);
        if (isNotFound(err)) throw new Error("the Service is gone; its addresses were not recorded", { cause: err });
        throw new Error(`could not record ${plan.ips.join(",")} on the Service`, { cause: err });
      }
    }
    deps.book.set(holder, plan.ips);
    if (before?.ips.join(",") !== plan.ips.join(",")) {
      session.logger.info(`Service ${key}: ${plan.ips.join(",")}${before ? ` (was ${before.ips.join(",")})` : ""}`);
    }
    return statusOf(plan.ips);
  }

  /**
   * Lets the Service's addresses go: the record comes off the Service first (when it still exists with the same
   * UID), then the hold. A record the book does not know (one a rebuild had to drop) is removed as well.
   */
  async function release(svc: Service): Promise<void> {
    const session = active();
    const key = serviceKey(svc);
    const uid = svc.metadata?.uid;
    const held = deps.book.allocationOf(key);
    const mine = held && (!uid || held.holder.uid === uid) ? held : undefined;
    const recorded = readRecord(svc);
    if (!mine && !recorded) return;
    const owner = mine?.holder.uid ?? uid;
    const namespace = svc.metadata?.namespace ?? "default";
    const name = svc.metadata?.name ?? "";
    let current: Service | undefined;
    try {
      current = await session.kube.get<Service>(Resources.services, name, { namespace, signal: session.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current && current.metadata?.uid === owner && readRecord(current)) {
      try {
        const patch = clearPatch(current);
        await session.kube.patch(Resources.services, name, "merge", patch, { namespace, signal: session.signal });
      } catch (err) {
        // Gone, or re-created under the same name (the UID precondition): either way the record went with it.
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
    if (!mine) return;
    deps.book.release(key);
    session.logger.info(`Service ${key}: released ${mine.ips.join(",")}`);
  }

  return {
    getLoadBalancerName(_ctx, _clusterName, service) {
      return defaultLoadBalancerName(service);
    },

    /**
     * What the Service holds; or, when the book does not know it, what its own record names, so that the delete path
     * still calls `ensureLoadBalancerDeleted` and the stray record is removed.
     */
    async getLoadBalancer(_ctx, _clusterName, service) {
      active();
      const held = deps.book.allocationOf(serviceKey(service));
      if (held && held.holder.uid === service.metadata?.uid) return statusOf(held.ips);
      const recorded = readRecord(service);
      return recorded && statusOf(recorded);
    },

    async ensureLoadBalancer(_ctx, _clusterName, service) {
      return step("ensure", service, () => lock.run(serviceKey(service), () => ensure(service)));
    },

    /** The announcer follows the Service; there are no hosts to update. */
    async updateLoadBalancer() {},

    async ensureLoadBalancerDeleted(_ctx, _clusterName, service) {
      await step("delete", service, () => lock.run(serviceKey(service), () => release(service)));
    },
  } satisfies LoadBalancer;
}
