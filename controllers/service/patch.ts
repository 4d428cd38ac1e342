/**
 * The service controller's writes: strategic-merge patches for the Service's `status` subresource, computed from
 * the old object and an updated copy with the spec left as it was (upstream `PatchService`). The bodies are what
 * Kubernetes' `CreateTwoWayMergePatch` produces for the two fields the controller changes, byte for byte:
 *
 * - `metadata.finalizers` (a list of strings merged as a set):
 *   - from none to some: the whole new list — `{"metadata":{"finalizers":["x"]}}`;
 *   - to none: `{"metadata":{"finalizers":null}}`;
 *   - otherwise additions under `finalizers` (in the new order), removals under
 *     `$deleteFromPrimitiveList/finalizers` (sorted, each once), and the new order under
 *     `$setElementOrder/finalizers` whenever anything changed.
 * - `status.loadBalancer.ingress` (replaced whole): the new list, or `null` when it became empty.
 *
 * Keys are sorted, as Go's encoder sorts map keys, and ingress entries take Go's field set (empty strings and
 * absent pointers dropped; a port always has `port` and `protocol`).
 */
import type { LoadBalancerIngress, LoadBalancerStatus, Service } from "../../kube/objects.ts";
import { Finalizers } from "../../kube/well-known.ts";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type ServicePatch = { [key: string]: JsonValue };

/** Go's byte-wise string order (our strings are ASCII in practice; UTF-16 order matches for the BMP). */
const goLess = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort(goLess)) out[key] = sortKeys(value[key] as JsonValue);
  return out;
}

/**
 * The finalizers part of the metadata patch, as the merge strategy for a list of scalars produces it: both lists
 * are walked in sorted order; additions keep the new list's order; removals are sorted and unique (the controller
 * only ever removes its one finalizer). Upstream compares the *sorted* old list with the new one to decide on
 * `$setElementOrder`, so a reordering alone also produces it.
 */
function finalizersPatch(before: readonly string[], after: readonly string[]): ServicePatch {
  if (before.length === 0) return after.length === 0 ? {} : { finalizers: [...after] };
  if (after.length === 0) return { finalizers: null };
  const a = [...before].sort(goLess);
  const b = [...after].sort(goLess);
  const added: string[] = [];
  const removed: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x !== undefined && y !== undefined && x === y) {
      i++;
      j++;
    } else if (x === undefined || (y !== undefined && x > y)) {
      added.push(y as string);
      j++;
    } else {
      removed.push(x);
      i++;
    }
  }
  const firstIndex = (f: string) => after.indexOf(f);
  added.sort((p, q) => firstIndex(p) - firstIndex(q));
  const uniqueRemoved = [...new Set(removed)];
  const sameOrder = a.length === after.length && a.every((f, k) => f === after[k]);
  const patch: ServicePatch = {};
  if (added.length > 0) patch.finalizers = added;
  if (uniqueRemoved.length > 0) patch["$deleteFromPrimitiveList/finalizers"] = uniqueRemoved;
  if (uniqueRemoved.length > 0 || !sameOrder) patch["$setElementOrder/finalizers"] = [...after];
  return patch;
}

/** An ingress entry as Go marshals `LoadBalancerIngress`. */
function ingressJson(ingress: LoadBalancerIngress): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  if (ingress.ip) out.ip = ingress.ip;
  if (ingress.hostname) out.hostname = ingress.hostname;
  if (ingress.ipMode !== undefined && ingress.ipMode !== null) out.ipMode = ingress.ipMode;
  const ports = ingress.ports ?? [];
  if (ports.length > 0) {
    out.ports = ports.map((p) => {
      const port: { [key: string]: JsonValue } = { port: p.port ?? 0, protocol: p.protocol ?? "" };
      if (p.error !== undefined && p.error !== null) port.error = p.error;
      return port;
    });
  }
  return out;
}

function ingressPatch(before: readonly LoadBalancerIngress[], after: readonly LoadBalancerIngress[]): ServicePatch {
  const a = before.map(ingressJson);
  const b = after.map(ingressJson);
  if (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))) return {};
  return { ingress: b.length === 0 ? null : b };
}

/**
 * The strategic-merge patch that turns `old` into `updated` for the fields the controller writes (finalizers and
 * the load-balancer status). `{}` when they are equal. Send it with `subresource: "status"`.
 */
export function servicePatch(old: Service, updated: Service): ServicePatch {
  const patch: ServicePatch = {};
  const metadata = finalizersPatch(old.metadata?.finalizers ?? [], updated.metadata?.finalizers ?? []);
  if (Object.keys(metadata).length > 0) patch.metadata = metadata;
  const lb = ingressPatch(old.status?.loadBalancer?.ingress ?? [], updated.status?.loadBalancer?.ingress ?? []);
  if (Object.keys(lb).length > 0) patch.status = { loadBalancer: lb };
  return sortKeys(patch) as ServicePatch;
}

/** A copy with the cleanup finalizer appended (unchanged when already there). */
export function withFinalizer(svc: Service): Service {
  const finalizers = svc.metadata?.finalizers ?? [];
  if (finalizers.includes(Finalizers.loadBalancerCleanup)) return svc;
  return { ...svc, metadata: { ...svc.metadata, finalizers: [...finalizers, Finalizers.loadBalancerCleanup] } };
}

/** A copy without any occurrence of the cleanup finalizer. */
export function withoutFinalizer(svc: Service): Service {
  const finalizers = (svc.metadata?.finalizers ?? []).filter((f) => f !== Finalizers.loadBalancerCleanup);
  return { ...svc, metadata: { ...svc.metadata, finalizers } };
}

/** A copy whose `status.loadBalancer` is `status`. */
export function withLoadBalancerStatus(svc: Service, status: LoadBalancerStatus): Service {
  return { ...svc, status: { ...svc.status, loadBalancer: status } };
}
