/**
 * The Service annotations the metal provider reads and writes, with typed readers.
 *
 * The allocation record (`metal.ccm.dev/allocated-ips` plus the UID it belongs to in `metal.ccm.dev/allocated-for`)
 * is written before `ensureLoadBalancer` returns, so an address is recorded in the cluster before anything
 * announces it, and it is what a restarted provider rebuilds its view from. A record whose UID is not the
 * Service's own (a manifest copied with its annotations, a Service re-created under the same name) is ignored.
 */
import type { Service } from "../../kube/objects.ts";
import { canonicalIP, familyOf, type IPFamily } from "../../net/ip.ts";
import type { PortClaim } from "./address-book.ts";

export const MetalAnnotations = {
  /** Comma-separated addresses allocated to the Service, in its family order. Written by the provider only. */
  allocatedIPs: "metal.ccm.dev/allocated-ips",
  /** The UID of the Service the record belongs to. */
  allocatedFor: "metal.ccm.dev/allocated-for",
} as const;

export const KubeVipAnnotations = {
  /** Requested addresses (comma-separated); kube-vip announces what it finds here. */
  loadBalancerIPs: "kube-vip.io/loadbalancerIPs",
  /** The interface kube-vip announces on, copied from the pool's `interface`. */
  serviceInterface: "kube-vip.io/serviceInterface",
} as const;

export const serviceKey = (svc: Service): string =>
  `${svc.metadata?.namespace ?? "default"}/${svc.metadata?.name ?? ""}`;

const splitList = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** The Service's own allocation record: canonical addresses, or undefined when absent, foreign or unreadable. */
export function readRecord(svc: Service): string[] | undefined {
  const annotations = svc.metadata?.annotations ?? {};
  const raw = annotations[MetalAnnotations.allocatedIPs];
  if (raw === undefined || annotations[MetalAnnotations.allocatedFor] !== svc.metadata?.uid) return undefined;
  const ips = splitList(raw).map(canonicalIP);
  if (ips.length === 0 || ips.some((ip) => ip === undefined)) return undefined;
  return ips as string[];
}

export interface AddressRequest {
  /** As written (validated later, so the error can quote them). */
  readonly ips: readonly string[];
  /** Where it came from, for messages: `annotation kube-vip.io/loadbalancerIPs` or `spec.loadBalancerIP`. */
  readonly source: string;
}

/**
 * What the Service asks for, given what it holds. The kube-vip annotation wins over `spec.loadBalancerIP` (as in
 * kube-vip), except when it only repeats the current allocation or the Service's own record `recorded` (the
 * provider wrote it there): then a changed `spec.loadBalancerIP` is the request. The record counts even when the
 * Service no longer holds it (someone else took the address), so the provider's own echo never pins a Service to
 * a contested address. Undefined means "nothing beyond what it holds".
 */
export function readRequest(
  svc: Service,
  held: readonly string[] | undefined,
  recorded?: readonly string[],
): AddressRequest | undefined {
  const annotated = splitList(svc.metadata?.annotations?.[KubeVipAnnotations.loadBalancerIPs]);
  const echoes = [held, recorded].some((ips) => ips !== undefined && sameAddresses(annotated, ips));
  if (annotated.length > 0 && !echoes) {
    return { ips: annotated, source: `annotation ${KubeVipAnnotations.loadBalancerIPs}` };
  }
  const specIP = svc.spec?.loadBalancerIP?.trim();
  if (specIP && !(held ?? []).includes(canonicalIP(specIP) ?? specIP)) {
    return { ips: [specIP], source: "spec.loadBalancerIP" };
  }
  return undefined;
}

function sameAddresses(texts: readonly string[], held: readonly string[]): boolean {
  const canon = texts.map((t) => canonicalIP(t) ?? t);
  return canon.length === held.length && canon.every((ip) => held.includes(ip));
}

export type FamilyPolicy = "SingleStack" | "PreferDualStack" | "RequireDualStack";

export interface FamilyWants {
  readonly policy: FamilyPolicy;
  /** `spec.ipFamilies` as families, in order; empty when unset. */
  readonly families: readonly IPFamily[];
}

export function familyWants(svc: Service): FamilyWants {
  const raw = svc.spec?.ipFamilyPolicy;
  const policy: FamilyPolicy = raw === "PreferDualStack" || raw === "RequireDualStack" ? raw : "SingleStack";
  const families = (svc.spec?.ipFamilies ?? []).flatMap((f) => familyOf(f) ?? []);
  return { policy, families: [...new Set(families)] };
}

/** `PROTOCOL/port` for every port; a Service without ports claims its whole address. */
export function portClaim(svc: Service): PortClaim {
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0) return "all";
  return new Set(ports.map((p) => `${p.protocol ?? "TCP"}/${p.port}`));
}

export interface RecordOptions {
  /** Also write `kube-vip.io/loadbalancerIPs` (kube-vip announces only what it finds there). */
  readonly kubeVip: boolean;
  readonly serviceInterface?: string | undefined;
}

/**
 * The merge patch that records `ips` on the Service. It carries the UID so a real API server refuses it for a
 * Service re-created under the same name (409, "Precondition failed: UID in precondition").
 */
export function recordPatch(svc: Service, ips: readonly string[], options: RecordOptions): unknown {
  const list = ips.join(",");
  const annotations: Record<string, string> = {
    [MetalAnnotations.allocatedIPs]: list,
    [MetalAnnotations.allocatedFor]: svc.metadata?.uid ?? "",
  };
  if (options.kubeVip) annotations[KubeVipAnnotations.loadBalancerIPs] = list;
  if (options.kubeVip && options.serviceInterface) {
    annotations[KubeVipAnnotations.serviceInterface] = options.serviceInterface;
  }
  return { metadata: { uid: svc.metadata?.uid, annotations } };
}

/** Whether the Service already carries exactly this record (then no write is needed). */
export function hasRecord(svc: Service, ips: readonly string[], options: RecordOptions): boolean {
  const want = (recordPatch(svc, ips, options) as { metadata: { annotations: Record<string, string> } }).metadata
    .annotations;
  const have = svc.metadata?.annotations ?? {};
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

/**
 * The merge patch that removes the record. The kube-vip annotation goes too when it only repeats the record (the
 * provider wrote it); a different value there is the user's request and stays.
 */
export function clearPatch(svc: Service, ips: readonly string[]): unknown {
  const annotations: Record<string, null> = {
    [MetalAnnotations.allocatedIPs]: null,
    [MetalAnnotations.allocatedFor]: null,
  };
  const kubeVip = splitList(svc.metadata?.annotations?.[KubeVipAnnotations.loadBalancerIPs]);
  if (kubeVip.length > 0 && sameAddresses(kubeVip, ips)) annotations[KubeVipAnnotations.loadBalancerIPs] = null;
  return { metadata: { uid: svc.metadata?.uid, annotations } };
}
