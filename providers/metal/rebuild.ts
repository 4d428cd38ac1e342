/**
 * Rebuilding the address book from the Services at start (and at every new leadership term): the allocations
 * live in the Services, so a restarted provider reads them back before it allocates anything.
 *
 * Claims are taken oldest Service first: first every Service's own record (`metal.ccm.dev/allocated-ips`), then,
 * for load-balancer Services without one, the addresses in their `status.loadBalancer.ingress` that lie in a pool
 * (adopting what an earlier allocator, such as kube-vip-cloud-provider, handed out and an announcer serves).
 * A claim on an address someone else already holds, where sharing is not allowed or the ports clash, is dropped
 * and reported: that Service gets a new address at its next sync instead of a duplicate.
 */
import type { Service } from "../../kube/objects.ts";
import { Finalizers } from "../../kube/well-known.ts";
import { canonicalIP, parseIPStrict } from "../../net/ip.ts";
import type { LoadBalancerClasses } from "../cloud.ts";
import { servesClass } from "../load-balancer-classes.ts";
import type { AddressBook, Holder } from "./address-book.ts";
import { sharingConflict } from "./allocator.ts";
import { portClaim, readRecord, serviceKey } from "./annotations.ts";
import { type PoolSet, poolContains } from "./pools.ts";

export interface RebuildReport {
  /** Services whose record was restored. */
  readonly restored: number;
  /** Services whose status addresses were adopted. */
  readonly adopted: number;
  /** One line per dropped claim. */
  readonly conflicts: readonly string[];
  /** Records left alone because no cleanup will ever release them (not a load balancer, no finalizer). */
  readonly ignored: readonly string[];
}

/**
 * Whether the service controller treats the Service as a load balancer of ours (upstream `wantsLoadBalancer`,
 * under the provider's `classes`).
 */
export const wantsLoadBalancer = (svc: Service, classes?: LoadBalancerClasses): boolean =>
  svc.spec?.type === "LoadBalancer" && servesClass(svc, classes);

/**
 * Whether the service controller will still release the Service's record: our finalizer, and (when the provider
 * declares classes) not a class served elsewhere, whose finalizer belongs to that class's implementation.
 */
const cleanupPending = (svc: Service, classes: LoadBalancerClasses | undefined): boolean =>
  (svc.metadata?.finalizers ?? []).includes(Finalizers.loadBalancerCleanup) &&
  (classes === undefined || servesClass(svc, classes));

/** `classes` is the provider's `LoadBalancer.classes`: only the Services it serves hold addresses here. */
export function rebuildAllocations(
  book: AddressBook,
  pools: PoolSet,
  services: readonly Service[],
  classes?: LoadBalancerClasses,
): RebuildReport {
  book.clear();
  const ordered = [...services].sort(
    (a, b) =>
      (a.metadata?.creationTimestamp ?? "").localeCompare(b.metadata?.creationTimestamp ?? "") ||
      serviceKey(a).localeCompare(serviceKey(b)),
  );
  const conflicts: string[] = [];
  const ignored: string[] = [];
  let restored = 0;
  let adopted = 0;
  const claim = (svc: Service, ips: readonly string[], how: string): boolean => {
    const holder = holderOf(svc);
    const kept = ips.filter((ip) => {
      const clash = sharingConflict(book, pools, ip, holder, true);
      if (clash) conflicts.push(`Service ${holder.key} ${how} ${ip}, but it is ${clash}`);
      return !clash;
    });
    if (kept.length > 0) book.set(holder, kept);
    return kept.length > 0;
  };
  for (const svc of ordered) {
    const record = readRecord(svc);
    if (!record) continue;
    if (!wantsLoadBalancer(svc, classes) && !cleanupPending(svc, classes)) {
      ignored.push(`Service ${serviceKey(svc)} records ${record.join(",")} but is not a load balancer of ours`);
      continue;
    }
    if (claim(svc, record, "records")) restored++;
  }
  for (const svc of ordered) {
    if (!wantsLoadBalancer(svc, classes) || readRecord(svc) || book.allocationOf(serviceKey(svc))) continue;
    const ips = (svc.status?.loadBalancer?.ingress ?? []).flatMap((i) => {
      const ip = i.ip ? parseIPStrict(i.ip) : undefined;
      return ip && [...pools.pools.values()].some((p) => poolContains(p, ip.family, ip.value))
        ? [canonicalIP(i.ip as string) as string]
        : [];
    });
    if (ips.length > 0 && claim(svc, [...new Set(ips)], "reports in its status")) adopted++;
  }
  return { restored, adopted, conflicts, ignored };
}

export function holderOf(svc: Service): Holder {
  return {
    key: serviceKey(svc),
    uid: svc.metadata?.uid ?? "",
    namespace: svc.metadata?.namespace ?? "default",
    ports: portClaim(svc),
  };
}
