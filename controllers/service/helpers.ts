/**
 * Service helpers providers use when building load balancers (upstream `service/helpers`). Error
 * messages are upstream's, word for word.
 */
import type { LoadBalancerIngress, LoadBalancerStatus, Service } from "../../kube/objects.ts";
import { Annotations, Finalizers } from "../../kube/well-known.ts";
import { formatCIDR, parseCIDR } from "../../net/cidr.ts";
import { goStringSlice } from "../../platform/go-format.ts";

/** `spec.loadBalancerSourceRanges` or the source-ranges annotation is not a list of CIDRs. */
export class SourceRangesError extends Error {
  override readonly name = "SourceRangesError";
}

function parseRanges(specs: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const spec of specs) set.add(formatCIDR(parseCIDR(spec.trim())));
  return set;
}

/**
 * The allowed source ranges as a set of normalised CIDRs (`10.0.0.1/24` → `10.0.0.0/24`; duplicates collapse).
 * `spec.loadBalancerSourceRanges` wins when non-empty; else the annotation (trimmed, empty ⇒ `0.0.0.0/0`), split
 * on `,`. Every entry is trimmed and must be a CIDR; a bare IP is rejected. Throws `SourceRangesError`.
 */
export function getLoadBalancerSourceRanges(svc: Service): Set<string> {
  const specs = svc.spec?.loadBalancerSourceRanges ?? [];
  if (specs.length > 0) {
    try {
      return parseRanges(specs);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new SourceRangesError(
        `service.Spec.LoadBalancerSourceRanges: ${goStringSlice(specs)} is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: ${detail}`,
        { cause: err },
      );
    }
  }
  const key = Annotations.loadBalancerSourceRanges;
  const value = (svc.metadata?.annotations?.[key] ?? "").trim() || "0.0.0.0/0";
  try {
    return parseRanges(value.split(","));
  } catch (err) {
    throw new SourceRangesError(
      `${key}: ${value} is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24`,
      { cause: err },
    );
  }
}

/** True when the (normalised) set allows everyone: it contains `0.0.0.0/0` (so `192.168.0.0/0` counts). */
export function isAllowAll(ranges: ReadonlySet<string>): boolean {
  return ranges.has("0.0.0.0/0");
}

/** `type` LoadBalancer or NodePort with `externalTrafficPolicy: Local`. */
export function requestsOnlyLocalTraffic(svc: Service): boolean {
  const type = svc.spec?.type;
  if (type !== "LoadBalancer" && type !== "NodePort") return false;
  return svc.spec?.externalTrafficPolicy === "Local";
}

/** `type: LoadBalancer` and only local traffic: the cloud must health-check nodes on `healthCheckNodePort`. */
export function needsHealthCheck(svc: Service): boolean {
  return svc.spec?.type === "LoadBalancer" && requestsOnlyLocalTraffic(svc);
}

/** `{ path: "/healthz", port: healthCheckNodePort }` when a health check is needed and the port set, else `("", 0)`. */
export function getServiceHealthCheckPathPort(svc: Service): { path: string; port: number } {
  const port = svc.spec?.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(svc) || port === 0) return { path: "", port: 0 };
  return { path: "/healthz", port };
}

/** The Service carries `service.kubernetes.io/load-balancer-cleanup`. */
export function hasLBFinalizer(svc: Service): boolean {
  return svc.metadata?.finalizers?.includes(Finalizers.loadBalancerCleanup) ?? false;
}

const nil = (v: unknown): boolean => v === undefined || v === null;

/** Pointer fields (`ipMode`, port `error`): absent differs from any value, even `""`. */
const samePointer = (a: unknown, b: unknown): boolean => (nil(a) && nil(b)) || a === b;

function ingressEqual(a: LoadBalancerIngress, b: LoadBalancerIngress): boolean {
  if ((a.ip ?? "") !== (b.ip ?? "") || (a.hostname ?? "") !== (b.hostname ?? "")) return false;
  if (!samePointer(a.ipMode, b.ipMode)) return false;
  const pa = a.ports ?? [];
  const pb = b.ports ?? [];
  if (pa.length !== pb.length) return false;
  return pa.every((p, i) => {
    const q = pb[i];
    return (
      q !== undefined &&
      (p.port ?? 0) === (q.port ?? 0) &&
      (p.protocol ?? "") === (q.protocol ?? "") &&
      samePointer(p.error, q.error)
    );
  });
}

/**
 * Semantic equality of the ingress lists (upstream `LoadBalancerStatusEqual`): order matters, absent equals empty,
 * and ipMode and ports count.
 */
export function loadBalancerStatusEqual(
  a: LoadBalancerStatus | null | undefined,
  b: LoadBalancerStatus | null | undefined,
): boolean {
  const ia = a?.ingress ?? [];
  const ib = b?.ingress ?? [];
  if (ia.length !== ib.length) return false;
  return ia.every((x, i) => {
    const y = ib[i];
    return y !== undefined && ingressEqual(x, y);
  });
}
