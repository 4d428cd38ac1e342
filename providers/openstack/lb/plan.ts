/**
 * The load balancer as it is (`LoadBalancerView`) and as the Service wants it → the operations that close the gap,
 * in an order Octavia accepts: tags first, then listeners no port wants (their pools first), then each wanted
 * listener created or brought in line, its pool, members and monitor. Pure: `apply.ts` performs them.
 *
 * A listener is matched by protocol and port. One that carries another Service's name as a tag belongs to a
 * Service sharing the load balancer (OCCM's shared load balancers) and is never touched. Octavia cannot change a
 * listener's or pool's protocol, so those are replaced. Members are compared as a set of address and port and
 * replaced in one batch call whenever they differ, so they always converge to the Nodes (OCCM #2962).
 */
import type { ListenerBody, MemberBody, MonitorBody, PoolBody } from "../api/octavia.ts";
import type { ListenerView, LoadBalancerView, PoolView } from "../api/octavia-schemas.ts";
import type { DesiredListener, DesiredLoadBalancer } from "./desired.ts";

export type Operation =
  | { readonly op: "setTags"; readonly tags: readonly string[] }
  | { readonly op: "deleteListener"; readonly id: string; readonly port: number; readonly poolID?: string }
  | { readonly op: "createListener"; readonly want: DesiredListener }
  | {
      readonly op: "updateListener";
      readonly id: string;
      readonly port: number;
      readonly change: Partial<ListenerBody>;
    }
  | { readonly op: "createPool"; readonly listenerID: string; readonly want: DesiredListener }
  | { readonly op: "deletePool"; readonly id: string; readonly port: number }
  | { readonly op: "updatePool"; readonly id: string; readonly port: number; readonly change: Partial<PoolBody> }
  | {
      readonly op: "replaceMembers";
      readonly poolID: string;
      readonly port: number;
      readonly members: readonly MemberBody[];
    }
  | { readonly op: "createMonitor"; readonly poolID: string; readonly port: number; readonly monitor: MonitorBody }
  | { readonly op: "updateMonitor"; readonly id: string; readonly port: number; readonly change: Partial<MonitorBody> }
  | { readonly op: "deleteMonitor"; readonly id: string; readonly port: number };

export function planLoadBalancer(view: LoadBalancerView, desired: DesiredLoadBalancer): Operation[] {
  const ops: Operation[] = [];
  const tags = view.lb.tags ?? [];
  const missing = desired.tags.filter((t) => !tags.includes(t));
  if (missing.length > 0) ops.push({ op: "setTags", tags: [...tags, ...missing] });

  const mine = view.listeners.filter((l) => isMine(l, desired, tags));
  const wanted = new Map(desired.listeners.map((w) => [w.key, w]));
  for (const l of mine) {
    if (!wanted.has(keyOf(l))) {
      ops.push({
        op: "deleteListener",
        id: l.listener.id,
        port: l.listener.protocol_port,
        ...(l.pool ? { poolID: l.pool.pool.id } : {}),
      });
    }
  }
  for (const want of desired.listeners) {
    const have = mine.find((l) => keyOf(l) === want.key);
    if (!have) {
      const taken = view.listeners.find((l) => keyOf(l) === want.key);
      if (taken) {
        throw new Error(
          `port ${want.listener.protocol_port} is taken on load balancer ${view.lb.id} by listener ${taken.listener.id} of another Service`,
        );
      }
      ops.push({ op: "createListener", want });
      continue;
    }
    ops.push(...planListener(have, want));
  }
  return ops;
}

/** Ours: tagged with this load balancer's name, or untagged on a load balancer that is ours (OCCM's rule). */
function isMine(l: ListenerView, desired: DesiredLoadBalancer, lbTags: readonly string[]): boolean {
  const tags = l.listener.tags ?? [];
  if (tags.includes(desired.name)) return true;
  const lbIsOurs = lbTags.length === 0 || lbTags.includes(desired.name) || lbTags.some((t) => desired.tags.includes(t));
  return tags.length === 0 && lbIsOurs;
}

const keyOf = (l: ListenerView) => `${l.listener.protocol}:${l.listener.protocol_port}`;

function planListener(have: ListenerView, want: DesiredListener): Operation[] {
  const ops: Operation[] = [];
  const l = have.listener;
  const port = l.protocol_port;
  const w = want.listener;
  const change: Record<string, unknown> = {};
  if (l.connection_limit !== w.connection_limit) change.connection_limit = w.connection_limit;
  for (const k of [
    "timeout_client_data",
    "timeout_member_connect",
    "timeout_member_data",
    "timeout_tcp_inspect",
  ] as const) {
    if (w[k] !== undefined && l[k] !== w[k]) change[k] = w[k];
  }
  if (!sameRecord(l.insert_headers ?? {}, w.insert_headers ?? {})) change.insert_headers = w.insert_headers ?? {};
  if (!sameSet(l.allowed_cidrs ?? [], w.allowed_cidrs ?? [])) change.allowed_cidrs = w.allowed_cidrs ?? null;
  if ((l.default_tls_container_ref ?? undefined) !== w.default_tls_container_ref) {
    change.default_tls_container_ref = w.default_tls_container_ref ?? null;
  }
  const tagsMissing = w.tags.filter((t) => !(l.tags ?? []).includes(t));
  if (tagsMissing.length > 0) change.tags = [...(l.tags ?? []), ...tagsMissing];
  if (Object.keys(change).length > 0) ops.push({ op: "updateListener", id: l.id, port, change });

  const pool = have.pool;
  if (!pool) return [...ops, { op: "createPool", listenerID: l.id, want }];
  if (pool.pool.protocol !== want.pool.protocol) {
    return [...ops, { op: "deletePool", id: pool.pool.id, port }, { op: "createPool", listenerID: l.id, want }];
  }
  ops.push(...planPool(pool, want, port));
  return ops;
}

function planPool(have: PoolView, want: DesiredListener, port: number): Operation[] {
  const ops: Operation[] = [];
  const p = have.pool;
  const change: Record<string, unknown> = {};
  if (p.lb_algorithm !== want.pool.lb_algorithm) change.lb_algorithm = want.pool.lb_algorithm;
  if ((p.session_persistence?.type ?? null) !== (want.pool.session_persistence?.type ?? null)) {
    change.session_persistence = want.pool.session_persistence;
  }
  if (Object.keys(change).length > 0) ops.push({ op: "updatePool", id: p.id, port, change });
  // A member's subnet counts when one is asked for (member-subnet-id): members made on another are made again.
  // Without one, whatever subnet Octavia or OCCM recorded is kept, so an adopted load balancer keeps its members.
  const bySubnet = want.members.some((m) => m.subnet_id !== undefined);
  type MemberKey = { address: string; protocol_port: number; monitor_port?: number | null; subnet_id?: string | null };
  const members = (list: readonly MemberKey[]) =>
    list.map(
      (m) => `${m.address}:${m.protocol_port}/${m.monitor_port ?? ""}${bySubnet ? `@${m.subnet_id ?? ""}` : ""}`,
    );
  if (!sameSet(members(have.members), members(want.members))) {
    ops.push({ op: "replaceMembers", poolID: p.id, port, members: want.members });
  }
  const m = have.monitor;
  const w = want.monitor;
  if (m && !w) ops.push({ op: "deleteMonitor", id: m.id, port });
  else if (!m && w) ops.push({ op: "createMonitor", poolID: p.id, port, monitor: w });
  else if (m && w) {
    if (m.type !== w.type) {
      ops.push({ op: "deleteMonitor", id: m.id, port }, { op: "createMonitor", poolID: p.id, port, monitor: w });
    } else {
      const change: Record<string, number> = {};
      if (m.delay !== w.delay) change.delay = w.delay;
      if (m.timeout !== w.timeout) change.timeout = w.timeout;
      if (m.max_retries !== w.max_retries) change.max_retries = w.max_retries;
      if (m.max_retries_down !== w.max_retries_down) change.max_retries_down = w.max_retries_down;
      if (Object.keys(change).length > 0) ops.push({ op: "updateMonitor", id: m.id, port, change });
    }
  }
  return ops;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((e) => y.has(e));
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** One line naming the operation, for logs, errors and `plan`. */
export function describe(op: Operation): string {
  switch (op.op) {
    case "setTags":
      return `tag the load balancer ${op.tags.join(", ")}`;
    case "deleteListener":
      return `delete listener ${op.id} on port ${op.port}${op.poolID ? " and its pool" : ""}`;
    case "createListener":
      return `create listener ${op.want.key} with pool ${op.want.pool.protocol} and ${op.want.members.length} member(s)${op.want.monitor ? ` and a ${op.want.monitor.type} monitor` : ""}`;
    case "updateListener":
      return `update listener on port ${op.port} (${Object.keys(op.change).join(", ")})`;
    case "createPool":
      return `create pool ${op.want.pool.protocol} for port ${op.want.listener.protocol_port} with ${op.want.members.length} member(s)`;
    case "deletePool":
      return `delete pool of port ${op.port}`;
    case "updatePool":
      return `update pool of port ${op.port} (${Object.keys(op.change).join(", ")})`;
    case "replaceMembers":
      return `set members of port ${op.port} to ${op.members.map((m) => `${m.address}:${m.protocol_port}`).join(", ") || "none"}`;
    case "createMonitor":
      return `create ${op.monitor.type} monitor on port ${op.port}`;
    case "updateMonitor":
      return `update monitor on port ${op.port} (${Object.keys(op.change).join(", ")})`;
    case "deleteMonitor":
      return `delete monitor on port ${op.port}`;
  }
}
