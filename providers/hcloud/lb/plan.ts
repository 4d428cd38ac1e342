/**
 * The load balancer as it is and as the Service wants it → the operations that close the gap, in the order they
 * must run: the load balancer itself (name and owner label, reverse DNS, algorithm, type), its network (detach
 * before attach; attached before any target uses its private IP), the public interface switched on, the listeners,
 * the targets (removed before added, so a server whose `use_private_ip` changes is taken out and put back), and only
 * then the public interface switched off (the API refuses while a target still uses a public IP). A converged
 * load balancer gives no operation at all: nothing is written on a resync.
 */

import type { CloudLBService, CloudLBTarget, CloudLoadBalancer } from "../api/load-balancer-schemas.ts";
import type { HealthCheckBody, ServiceBody, TargetBody } from "../api/load-balancers.ts";
import { SERVICE_UID_LABEL } from "../api/load-balancers.ts";
import type { DesiredLoadBalancer } from "./desired.ts";

export type Operation =
  | {
      readonly op: "update";
      readonly name?: string;
      readonly labels?: Readonly<Record<string, string>>;
    }
  | { readonly op: "changeDNSPtr"; readonly ip: string; readonly dnsPtr: string | null }
  | { readonly op: "changeAlgorithm"; readonly type: string }
  | { readonly op: "changeType"; readonly type: string }
  | { readonly op: "detachFromNetwork"; readonly network: number }
  | { readonly op: "attachToNetwork"; readonly network: number; readonly ip?: string; readonly ipRange?: string }
  | { readonly op: "setPublicInterface"; readonly enabled: boolean }
  | { readonly op: "deleteService"; readonly listenPort: number }
  | { readonly op: "addService"; readonly service: ServiceBody }
  | { readonly op: "updateService"; readonly service: ServiceBody }
  | { readonly op: "removeTarget"; readonly target: TargetBody }
  | { readonly op: "addTarget"; readonly target: TargetBody }
  /** Not sent: a target the type has no room for, for the runner to warn about (hccm's `MaxTargetsReached`). */
  | { readonly op: "leaveOutTarget"; readonly target: TargetBody; readonly max: number };

/** Every operation `current` needs to become `desired`, in order; none when it already is. */
export function planLoadBalancer(current: CloudLoadBalancer, desired: DesiredLoadBalancer): Operation[] {
  return [
    ...planItself(current, desired),
    ...planNetwork(current, desired),
    ...planListeners(current, desired),
    ...planTargets(current, desired),
    ...(publicInterfaceChange(current, desired) === false
      ? [{ op: "setPublicInterface", enabled: false } as const]
      : []),
  ];
}

function planItself(current: CloudLoadBalancer, desired: DesiredLoadBalancer): Operation[] {
  const ops: Operation[] = [];
  const relabel = current.labels[SERVICE_UID_LABEL] !== desired.uid;
  const rename = desired.rename !== undefined && desired.rename !== current.name;
  if (relabel || rename) {
    ops.push({
      op: "update",
      ...(rename ? { name: desired.rename } : {}),
      ...(relabel ? { labels: { ...current.labels, [SERVICE_UID_LABEL]: desired.uid } } : {}),
    });
  }
  const v4 = current.public_net?.ipv4;
  if (desired.ipv4RDNS !== undefined && v4?.ip && v4.dns_ptr !== desired.ipv4RDNS) {
    ops.push({ op: "changeDNSPtr", ip: v4.ip, dnsPtr: desired.ipv4RDNS === "" ? null : desired.ipv4RDNS });
  }
  const v6 = current.public_net?.ipv6;
  if (desired.ipv6RDNS !== undefined && v6?.ip && v6.dns_ptr !== desired.ipv6RDNS) {
    ops.push({ op: "changeDNSPtr", ip: v6.ip, dnsPtr: desired.ipv6RDNS === "" ? null : desired.ipv6RDNS });
  }
  if (desired.algorithm !== undefined && current.algorithm?.type !== desired.algorithm) {
    ops.push({ op: "changeAlgorithm", type: desired.algorithm });
  }
  if (desired.type !== undefined && current.load_balancer_type.name !== desired.type) {
    ops.push({ op: "changeType", type: desired.type });
  }
  return ops;
}

function planNetwork(current: CloudLoadBalancer, desired: DesiredLoadBalancer): Operation[] {
  const ops: Operation[] = [];
  const want = desired.network;
  const fits = (n: { network: number; ip: string }) =>
    want !== undefined && n.network === want.id && (want.ip === undefined || want.ip === n.ip);
  for (const n of current.private_net) {
    if (!fits(n)) ops.push({ op: "detachFromNetwork", network: n.network });
  }
  if (want && !current.private_net.some(fits)) {
    ops.push({
      op: "attachToNetwork",
      network: want.id,
      ...(want.ip === undefined ? {} : { ip: want.ip }),
      ...(want.ipRange === undefined ? {} : { ipRange: want.ipRange }),
    });
  }
  if (publicInterfaceChange(current, desired) === true) ops.push({ op: "setPublicInterface", enabled: true });
  return ops;
}

/** The interface to switch on or off, if any: on before the targets change, off only after they use private IPs. */
function publicInterfaceChange(current: CloudLoadBalancer, desired: DesiredLoadBalancer): boolean | undefined {
  const enabled = current.public_net?.enabled ?? true;
  return desired.publicInterface === undefined || desired.publicInterface === enabled
    ? undefined
    : desired.publicInterface;
}

function planListeners(current: CloudLoadBalancer, desired: DesiredLoadBalancer): Operation[] {
  const ops: Operation[] = [];
  const wanted = new Set(desired.services.map((s) => s.listen_port));
  for (const s of current.services) {
    if (!wanted.has(s.listen_port)) ops.push({ op: "deleteService", listenPort: s.listen_port });
  }
  for (const want of desired.services) {
    const have = current.services.find((s) => s.listen_port === want.listen_port);
    if (!have) ops.push({ op: "addService", service: want });
    else if (!serviceHolds(have, want)) ops.push({ op: "updateService", service: want });
  }
  return ops;
}

/** Whether every field `want` sets has that value already (an unset field is left as it is). */
export function serviceHolds(have: CloudLBService, want: ServiceBody): boolean {
  if (want.protocol !== undefined && have.protocol !== want.protocol) return false;
  if (want.destination_port !== undefined && have.destination_port !== want.destination_port) return false;
  if (want.proxyprotocol !== undefined && have.proxyprotocol !== want.proxyprotocol) return false;
  if (want.http) {
    const h = have.http;
    if (!h) return false;
    const w = want.http;
    if (w.cookie_name !== undefined && h.cookie_name !== w.cookie_name) return false;
    if (w.cookie_lifetime !== undefined && h.cookie_lifetime !== w.cookie_lifetime) return false;
    if (w.redirect_http !== undefined && h.redirect_http !== w.redirect_http) return false;
    if (w.sticky_sessions !== undefined && h.sticky_sessions !== w.sticky_sessions) return false;
    if (w.timeout_idle !== undefined && h.timeout_idle !== w.timeout_idle) return false;
    if (w.certificates !== undefined && !sameSet(h.certificates, w.certificates)) return false;
  }
  return want.health_check === undefined || healthCheckHolds(have.health_check, want.health_check);
}

function healthCheckHolds(have: CloudLBService["health_check"], want: HealthCheckBody): boolean {
  if (!have) return false;
  if (want.protocol !== undefined && have.protocol !== want.protocol) return false;
  if (want.port !== undefined && have.port !== want.port) return false;
  if (want.interval !== undefined && have.interval !== want.interval) return false;
  if (want.timeout !== undefined && have.timeout !== want.timeout) return false;
  if (want.retries !== undefined && have.retries !== want.retries) return false;
  if (want.http) {
    const h = have.http;
    if (!h) return false;
    const w = want.http;
    if (w.domain !== undefined && h.domain !== w.domain) return false;
    if (w.path !== undefined && h.path !== w.path) return false;
    if (w.tls !== undefined && h.tls !== w.tls) return false;
    if (w.status_codes !== undefined && !sameSet(h.status_codes, w.status_codes)) return false;
  }
  return true;
}

function sameSet<T>(a: readonly T[], b: readonly T[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((e) => y.has(e));
}

/**
 * Server and IP targets not wanted (or with the other `use_private_ip`) go, wanted ones missing come. Label-selector
 * targets and types this client does not know are someone else's: left alone, as hccm does.
 */
function planTargets(current: CloudLoadBalancer, desired: DesiredLoadBalancer): Operation[] {
  const remove: Operation[] = [];
  const kept: TargetBody[] = [];
  for (const t of current.targets) {
    const body = targetBody(t);
    if (!body) continue;
    if (desired.targets.some((w) => sameTarget(w, body))) kept.push(body);
    else remove.push({ op: "removeTarget", target: body });
  }
  const missing = desired.targets.filter((w) => !kept.some((k) => sameTarget(w, k)));
  const max = current.load_balancer_type.max_targets;
  const room = max === null ? missing.length : Math.max(0, max - (current.targets.length - remove.length));
  const add: Operation[] = missing.map((target, i) =>
    i < room ? { op: "addTarget", target } : { op: "leaveOutTarget", target, max: max ?? 0 },
  );
  return [...remove, ...add];
}

function targetBody(t: CloudLBTarget): TargetBody | undefined {
  if (t.type === "server" && "server" in t) {
    const s = t as { server: { id: number }; use_private_ip: boolean };
    return { type: "server", server: { id: s.server.id }, use_private_ip: s.use_private_ip };
  }
  if (t.type === "ip" && "ip" in t) return { type: "ip", ip: { ip: (t as { ip: { ip: string } }).ip.ip } };
  return undefined;
}

/** The same target: a server target must also agree on `use_private_ip`. */
function sameTarget(a: TargetBody, b: TargetBody): boolean {
  if (a.type === "server" && b.type === "server") {
    return a.server.id === b.server.id && (a.use_private_ip ?? false) === (b.use_private_ip ?? false);
  }
  return a.type === "ip" && b.type === "ip" && a.ip.ip === b.ip.ip;
}
