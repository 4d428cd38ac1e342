/**
 * What differs between a load balancer as found and as the Service wants it, as a list of operations in the order
 * they can be applied (scw CCM's `updateLoadBalancer` order): frontends of ports gone are removed first, backends
 * made or changed (settings, health check, servers), frontends made or changed and pointed at their backend, then
 * backends no frontend uses are removed, then the load balancer's own settings. Pure: no call is made.
 *
 * Frontends are matched by inbound port, backends by node port, as scw CCM matches them, so an adopted load
 * balancer keeps its frontends and backends (same IDs). A setting the Service leaves unset (an optional
 * annotation) keeps the load balancer's value. Of an externally managed load balancer only the frontends and
 * backends named after this Service are looked at.
 */
import type {
  BackendSpec,
  FrontendSpec,
  HealthCheckSpec,
  ScwBackend,
  ScwFrontend,
  ScwLoadBalancer,
} from "../api/lb-schemas.ts";
import type { DesiredLoadBalancer } from "./desired.ts";

export type LbOperation =
  | { readonly op: "deleteFrontend"; readonly frontend: ScwFrontend }
  | { readonly op: "createBackend"; readonly spec: BackendSpec; readonly pool: readonly string[] }
  | { readonly op: "updateBackend"; readonly id: string; readonly spec: BackendSpec; readonly what: readonly string[] }
  | {
      readonly op: "updateHealthCheck";
      readonly id: string;
      readonly forwardPort: number;
      readonly spec: HealthCheckSpec;
    }
  | { readonly op: "setServers"; readonly id: string; readonly forwardPort: number; readonly pool: readonly string[] }
  | { readonly op: "createFrontend"; readonly spec: FrontendSpec; readonly forwardPort: number }
  | {
      readonly op: "updateFrontend";
      readonly id: string;
      readonly spec: FrontendSpec;
      readonly forwardPort: number;
      readonly what: readonly string[];
    }
  | { readonly op: "deleteBackend"; readonly backend: ScwBackend }
  | { readonly op: "attachPrivateNetwork"; readonly id: string; readonly ipamIds: readonly string[] }
  | { readonly op: "detachPrivateNetwork"; readonly id: string }
  | { readonly op: "migrate"; readonly type: string }
  | { readonly op: "updateSslCompatibilityLevel"; readonly level: string };

export interface FoundLoadBalancer {
  readonly lb: ScwLoadBalancer;
  readonly frontends: readonly ScwFrontend[];
  readonly backends: readonly ScwBackend[];
  readonly privateNetworks: readonly string[];
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && new Set(a).size === new Set([...a, ...b]).size;

/** The fields of `want` that are set and differ from `got`'s. */
function differing<T extends object>(got: T, want: T, skip: readonly (keyof T)[] = []): string[] {
  const out: string[] = [];
  for (const [k, w] of Object.entries(want) as [keyof T & string, unknown][]) {
    if (skip.includes(k) || w === undefined) continue;
    const g = got[k];
    const same = Array.isArray(w) ? sameSet(g as string[], w as string[]) : g === w;
    if (!same) out.push(k);
  }
  return out;
}

function healthCheckDiffers(got: HealthCheckSpec, want: HealthCheckSpec): boolean {
  if (differing(got, want, ["http"]).length > 0) return true;
  if (want.http === undefined) return false;
  return got.http === undefined || differing(got.http, want.http).length > 0;
}

export function planLoadBalancer(found: FoundLoadBalancer, desired: DesiredLoadBalancer): LbOperation[] {
  const ops: LbOperation[] = [];
  const own = <T extends { name: string }>(items: readonly T[]) =>
    items.filter((i) => i.name.startsWith(desired.ownPrefix));
  const wantFront = new Map(desired.ports.map((p) => [p.frontend.inboundPort, p]));
  const wantBack = new Map(desired.ports.map((p) => [p.backend.forwardPort, p.backend]));
  const backendPort = new Map(found.backends.map((b) => [b.id, b.forwardPort]));

  // Frontends: the first per port is kept, the rest and those of ports gone are removed.
  const keptFront = new Map<number, ScwFrontend>();
  for (const f of own(found.frontends)) {
    if (keptFront.has(f.inboundPort) || !wantFront.has(f.inboundPort)) ops.push({ op: "deleteFrontend", frontend: f });
    else keptFront.set(f.inboundPort, f);
  }

  const keptBack = new Map<number, ScwBackend>();
  const extraBack: ScwBackend[] = [];
  for (const b of own(found.backends)) {
    if (keptBack.has(b.forwardPort) || !wantBack.has(b.forwardPort)) extraBack.push(b);
    else keptBack.set(b.forwardPort, b);
  }
  for (const [port, spec] of wantBack) {
    const got = keptBack.get(port);
    if (!got) {
      ops.push({ op: "createBackend", spec, pool: desired.pool ?? [] });
      continue;
    }
    const what = differing<BackendSpec>(got, spec, ["healthCheck"]);
    if (what.length > 0) ops.push({ op: "updateBackend", id: got.id, spec, what });
    if (healthCheckDiffers(got.healthCheck, spec.healthCheck)) {
      ops.push({ op: "updateHealthCheck", id: got.id, forwardPort: port, spec: spec.healthCheck });
    }
    if (desired.pool !== undefined && !sameSet(got.pool, desired.pool)) {
      ops.push({ op: "setServers", id: got.id, forwardPort: port, pool: desired.pool });
    }
  }

  for (const [port, pair] of wantFront) {
    const got = keptFront.get(port);
    const forwardPort = pair.backend.forwardPort;
    if (!got) {
      ops.push({ op: "createFrontend", spec: pair.frontend, forwardPort });
      continue;
    }
    const what = differing<FrontendSpec>(got, pair.frontend);
    if (backendPort.get(got.backendId) !== forwardPort || !keptBack.has(forwardPort)) what.push("backend");
    if (what.length > 0) ops.push({ op: "updateFrontend", id: got.id, spec: pair.frontend, forwardPort, what });
  }
  for (const b of extraBack) ops.push({ op: "deleteBackend", backend: b });

  if (!desired.externallyManaged) {
    for (const id of desired.privateNetworks) {
      if (!found.privateNetworks.includes(id))
        ops.push({ op: "attachPrivateNetwork", id, ipamIds: desired.privateIpIds });
    }
    for (const id of found.privateNetworks) {
      if (!desired.privateNetworks.includes(id)) ops.push({ op: "detachPrivateNetwork", id });
    }
    if (found.lb.sslCompatibilityLevel !== desired.sslCompatibilityLevel) {
      ops.push({ op: "updateSslCompatibilityLevel", level: desired.sslCompatibilityLevel });
    }
    // Last: a migration leaves the load balancer busy for a while.
    if (desired.type !== undefined && found.lb.type !== desired.type) ops.push({ op: "migrate", type: desired.type });
  } else {
    // Externally managed: its private networks are the owner's; only missing ones are attached.
    for (const id of desired.privateNetworks) {
      if (!found.privateNetworks.includes(id))
        ops.push({ op: "attachPrivateNetwork", id, ipamIds: desired.privateIpIds });
    }
  }
  return ops;
}

/** One short phrase per operation, for logs and `plan`. */
export function describe(op: LbOperation): string {
  switch (op.op) {
    case "deleteFrontend":
      return `remove frontend ${op.frontend.name} (port ${op.frontend.inboundPort})`;
    case "createBackend":
      return `add backend for node port ${op.spec.forwardPort} (${op.pool.length} servers)`;
    case "updateBackend":
      return `change backend ${op.spec.name}: ${op.what.join(", ")}`;
    case "updateHealthCheck":
      return `change the health check of node port ${op.forwardPort}`;
    case "setServers":
      return `set servers of node port ${op.forwardPort} to ${op.pool.join(", ") || "none"}`;
    case "createFrontend":
      return `add frontend for port ${op.spec.inboundPort}`;
    case "updateFrontend":
      return `change frontend of port ${op.spec.inboundPort}: ${op.what.join(", ")}`;
    case "deleteBackend":
      return `remove backend ${op.backend.name} (node port ${op.backend.forwardPort})`;
    case "attachPrivateNetwork":
      return `attach private network ${op.id}`;
    case "detachPrivateNetwork":
      return `detach private network ${op.id}`;
    case "migrate":
      return `migrate to type ${op.type}`;
    case "updateSslCompatibilityLevel":
      return `set SSL compatibility level ${op.level}`;
  }
}
