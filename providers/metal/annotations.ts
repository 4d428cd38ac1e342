/**
 * The Service annotations the metal provider reads and writes, declared with the annotation toolkit (the reference
 * in docs/providers/metal.md is generated from these declarations), and what it makes of them.
 *
 * The allocation record (`metal.ccm.dev/allocated-ips` plus the UID it belongs to in `metal.ccm.dev/allocated-for`)
 * is written before `ensureLoadBalancer` returns, so an address is recorded in the cluster before anything
 * announces it, and it is what a restarted provider rebuilds its view from. A record whose UID is not the
 * Service's own (a manifest copied with its annotations, a Service re-created under the same name) is ignored.
 *
 * `kube-vip.io/loadbalancerIPs` is both a request (written by the user) and, with `kubeVipAnnotation`, the copy of
 * the record kube-vip announces (written by the provider). `metal.ccm.dev/kube-vip-echo` holds the exact text the
 * provider last wrote there: while the annotation still reads exactly that, it is the provider's; any other value is
 * the user's, a request that wins over `spec.loadBalancerIP` and that the provider never rewrites or removes.
 */
import type { Service } from "../../kube/objects.ts";
import { canonicalIP, familyOf, formatIP, type IPFamily } from "../../net/ip.ts";
import { annotation, defineAnnotations, readAnnotation } from "../kit/annotations/declare.ts";
import { ip, list, splitList, text } from "../kit/annotations/readers.ts";
import type { PortClaim } from "./address-book.ts";

export const MetalAnnotations = {
  /** Comma-separated addresses allocated to the Service, in its family order. Written by the provider only. */
  allocatedIPs: "metal.ccm.dev/allocated-ips",
  /** The UID of the Service the record belongs to. */
  allocatedFor: "metal.ccm.dev/allocated-for",
  /** What the provider last wrote to `kube-vip.io/loadbalancerIPs`, to tell its own copy from a user's request. */
  kubeVipEcho: "metal.ccm.dev/kube-vip-echo",
} as const;

export const KubeVipAnnotations = {
  /** Requested addresses (comma-separated); kube-vip announces what it finds here. */
  loadBalancerIPs: "kube-vip.io/loadbalancerIPs",
  /** The interface kube-vip announces on, copied from the pool's `interface`. */
  serviceInterface: "kube-vip.io/serviceInterface",
} as const;

/** What users set: read in one pass before anything is allocated, every problem reported at once. */
export const MetalServiceAnnotations = defineAnnotations({
  loadBalancerIPs: annotation(KubeVipAnnotations.loadBalancerIPs, list(ip()), {
    description:
      "The addresses the Service asks for, at most one per family; wins over `spec.loadBalancerIP`. With `kubeVipAnnotation`, the provider writes the allocation here when you did not (for kube-vip to announce); a value you wrote is never changed.",
    example: "192.0.2.10,2001:db8::10",
  }),
});

/** What the provider writes: an unreadable or foreign record is ignored (and replaced), never an error. */
export const MetalRecordAnnotations = defineAnnotations({
  allocatedIPs: annotation(MetalAnnotations.allocatedIPs, list(ip()), {
    description: "The addresses allocated to the Service, in its family order.",
    example: "192.0.2.1,2001:db8::1",
    writtenBy: "provider",
  }),
  allocatedFor: annotation(MetalAnnotations.allocatedFor, text(), {
    description: "The UID of the Service the record belongs to; a record with another UID is ignored.",
    example: "0b6c5a7e-1d2f-4c3b-9a8e-7f6d5c4b3a21",
    writtenBy: "provider",
  }),
  kubeVipEcho: annotation(MetalAnnotations.kubeVipEcho, text(), {
    description:
      "What the provider last wrote to `kube-vip.io/loadbalancerIPs`: while that annotation reads the same, it is the provider's copy of the record, not a request.",
    example: "192.0.2.1,2001:db8::1",
    writtenBy: "provider",
  }),
  serviceInterface: annotation(KubeVipAnnotations.serviceInterface, text(), {
    description: "The interface kube-vip announces on, copied from the pool's `interface`.",
    example: "eth1",
    writtenBy: "provider",
  }),
});

export const serviceKey = (svc: Service): string =>
  `${svc.metadata?.namespace ?? "default"}/${svc.metadata?.name ?? ""}`;

/** The Service's own allocation record: canonical addresses, or undefined when absent, foreign or unreadable. */
export function readRecord(svc: Service): string[] | undefined {
  const owner = readAnnotation(svc, MetalRecordAnnotations.declared.allocatedFor);
  if (owner.state !== "valid" || owner.value !== svc.metadata?.uid) return undefined;
  const ips = readAnnotation(svc, MetalRecordAnnotations.declared.allocatedIPs);
  if (ips.state !== "valid" || ips.value.length === 0) return undefined;
  return ips.value.map(formatIP);
}

/** Who wrote `kube-vip.io/loadbalancerIPs`: nobody (absent), the provider (its echo, unchanged) or the user. */
export function kubeVipOwner(svc: Service): "none" | "provider" | "user" {
  const annotations = svc.metadata?.annotations ?? {};
  const value = annotations[KubeVipAnnotations.loadBalancerIPs];
  if (value === undefined) return "none";
  return value === annotations[MetalAnnotations.kubeVipEcho] ? "provider" : "user";
}

/** The addresses the user's kube-vip annotation asks for: canonical when readable, else as written. */
function annotatedRequest(svc: Service): string[] {
  if (kubeVipOwner(svc) !== "user") return [];
  const read = readAnnotation(svc, MetalServiceAnnotations.declared.loadBalancerIPs);
  if (read.state === "valid") return read.value.map(formatIP);
  return splitList(svc.metadata?.annotations?.[KubeVipAnnotations.loadBalancerIPs] ?? "");
}

export interface AddressRequest {
  /** As written (validated later, so the error can quote them). */
  readonly ips: readonly string[];
  /** Where it came from, for messages: `annotation kube-vip.io/loadbalancerIPs` or `spec.loadBalancerIP`. */
  readonly source: string;
}

/**
 * What the Service asks for, given what it holds: the user's `kube-vip.io/loadbalancerIPs` (never the provider's own
 * copy of the record), else a `spec.loadBalancerIP` it does not hold yet. Undefined means "nothing beyond what it
 * holds".
 */
export function readRequest(svc: Service, held: readonly string[] | undefined): AddressRequest | undefined {
  const annotated = annotatedRequest(svc);
  if (annotated.length > 0) return { ips: annotated, source: `annotation ${KubeVipAnnotations.loadBalancerIPs}` };
  const specIP = svc.spec?.loadBalancerIP?.trim();
  if (specIP && !(held ?? []).includes(canonicalIP(specIP) ?? specIP)) {
    return { ips: [specIP], source: "spec.loadBalancerIP" };
  }
  return undefined;
}

/** When the user's kube-vip annotation and `spec.loadBalancerIP` ask for different addresses: the warning to give. */
export function requestConflict(svc: Service): string | undefined {
  const specIP = svc.spec?.loadBalancerIP?.trim();
  const annotated = annotatedRequest(svc);
  if (!specIP || annotated.length === 0 || annotated.includes(canonicalIP(specIP) ?? specIP)) return undefined;
  const value = svc.metadata?.annotations?.[KubeVipAnnotations.loadBalancerIPs] ?? "";
  return `${KubeVipAnnotations.loadBalancerIPs} (${JSON.stringify(value)}) and spec.loadBalancerIP (${JSON.stringify(specIP)}) ask for different addresses: the annotation wins and spec.loadBalancerIP is ignored; remove one of them`;
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
 * Service re-created under the same name (409, "Precondition failed: UID in precondition"). The kube-vip annotation
 * is written (with its echo) only where it is not the user's.
 */
export function recordPatch(svc: Service, ips: readonly string[], options: RecordOptions): unknown {
  return { metadata: { uid: svc.metadata?.uid, annotations: recordAnnotations(svc, ips, options) } };
}

/** The annotations of the record: a value to write, or `null` for one that must go. */
function recordAnnotations(
  svc: Service,
  ips: readonly string[],
  options: RecordOptions,
): Record<string, string | null> {
  const list = ips.join(",");
  const annotations: Record<string, string | null> = {
    [MetalAnnotations.allocatedIPs]: list,
    [MetalAnnotations.allocatedFor]: svc.metadata?.uid ?? "",
  };
  if (!options.kubeVip) return annotations;
  if (kubeVipOwner(svc) === "user") {
    if (svc.metadata?.annotations?.[MetalAnnotations.kubeVipEcho] !== undefined) {
      annotations[MetalAnnotations.kubeVipEcho] = null;
    }
  } else {
    annotations[KubeVipAnnotations.loadBalancerIPs] = list;
    annotations[MetalAnnotations.kubeVipEcho] = list;
  }
  if (options.serviceInterface) annotations[KubeVipAnnotations.serviceInterface] = options.serviceInterface;
  return annotations;
}

/** Whether the Service already carries exactly this record (then no write is needed). */
export function hasRecord(svc: Service, ips: readonly string[], options: RecordOptions): boolean {
  const have = svc.metadata?.annotations ?? {};
  return Object.entries(recordAnnotations(svc, ips, options)).every(([k, v]) =>
    v === null ? have[k] === undefined : have[k] === v,
  );
}

/**
 * The merge patch that removes the record. The kube-vip annotation goes too when it is the provider's echo; the
 * user's stays.
 */
export function clearPatch(svc: Service): unknown {
  const annotations: Record<string, null> = {
    [MetalAnnotations.allocatedIPs]: null,
    [MetalAnnotations.allocatedFor]: null,
  };
  if (svc.metadata?.annotations?.[MetalAnnotations.kubeVipEcho] !== undefined) {
    annotations[MetalAnnotations.kubeVipEcho] = null;
  }
  if (kubeVipOwner(svc) === "provider") annotations[KubeVipAnnotations.loadBalancerIPs] = null;
  return { metadata: { uid: svc.metadata?.uid, annotations } };
}
