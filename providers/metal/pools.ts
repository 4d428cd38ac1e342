/**
 * Address pools for load balancers: a global pool and per-namespace pools, each a set of IPv4 and IPv6 ranges.
 *
 * A Service takes addresses from its namespace's pool when one is configured, else from the global pool; a
 * namespace pool that is full does not spill over into the global one. Pools from the kube-vip ConfigMap replace
 * cloud-config pools of the same scope (the global scope or one namespace). A scope whose configuration is
 * unusable is "broken": Services there get an error naming the problem instead of silently falling back.
 */
import type { IPFamily } from "../../net/ip.ts";
import { formatRange, type IPRange, mergeRanges, parseAddressEntry, rangeSize } from "./address-ranges.ts";

export const GLOBAL_SCOPE = "global";

export interface AddressPool {
  /** `global` or the namespace. */
  readonly scope: string;
  /** Where it was configured, for messages (`cloud-config loadBalancer.global`, `ConfigMap kube-system/kubevip`). */
  readonly source: string;
  /** Merged, sorted, disjoint. */
  readonly ranges: readonly IPRange[];
  /** Automatic allocation skips IPv4 addresses ending in `.0` or `.255` (requests may still name them). */
  readonly avoidBuggyIPs: boolean;
  /** Automatic allocation takes the highest free address first. */
  readonly descending: boolean;
  /** Copied to the Service as `kube-vip.io/serviceInterface` when set. */
  readonly interface?: string | undefined;
}

export interface PoolSet {
  readonly pools: ReadonlyMap<string, AddressPool>;
  /** Scope → problems: allocation there fails with them. */
  readonly broken: ReadonlyMap<string, readonly string[]>;
  /**
   * Scope → whether its Services may share an address with others that may, when their ports do not clash. A
   * namespace without its own entry follows the global one; without either, sharing is off. Independent of pools:
   * a namespace may allow sharing on addresses from the global pool.
   */
  readonly sharing: ReadonlyMap<string, boolean>;
}

export const emptyPoolSet: PoolSet = { pools: new Map(), broken: new Map(), sharing: new Map() };

/** The scope that serves a namespace, with its pool; `undefined` when neither it nor the global scope exists. */
export type PoolLookup =
  | { readonly kind: "pool"; readonly pool: AddressPool }
  | { readonly kind: "broken"; readonly scope: string; readonly problems: readonly string[] }
  | { readonly kind: "none" };

export function poolFor(set: PoolSet, namespace: string): PoolLookup {
  for (const scope of [namespace, GLOBAL_SCOPE]) {
    const problems = set.broken.get(scope);
    if (problems) return { kind: "broken", scope, problems };
    const pool = set.pools.get(scope);
    if (pool) return { kind: "pool", pool };
  }
  return { kind: "none" };
}

/** Whether a namespace's Services may share addresses (the namespace's scope, else the global one). */
export function shareAllowed(set: PoolSet, namespace: string): boolean {
  return set.sharing.get(namespace) ?? set.sharing.get(GLOBAL_SCOPE) ?? false;
}

/** `override`'s scopes (pools or broken, and sharing flags) replace `base`'s. */
export function overlayPools(base: PoolSet, override: PoolSet): PoolSet {
  const pools = new Map(base.pools);
  const broken = new Map(base.broken);
  for (const scope of new Set([...override.pools.keys(), ...override.broken.keys()])) {
    pools.delete(scope);
    broken.delete(scope);
  }
  for (const [scope, pool] of override.pools) pools.set(scope, pool);
  for (const [scope, problems] of override.broken) broken.set(scope, problems);
  return { pools, broken, sharing: new Map([...base.sharing, ...override.sharing]) };
}

export interface PoolSpec {
  readonly scope: string;
  readonly source: string;
  readonly entries: readonly string[];
  readonly skipCIDREnds: boolean;
  readonly avoidBuggyIPs: boolean;
  readonly descending: boolean;
  readonly interface?: string | undefined;
}

/** A pool from its entries, or the problems with them (each names the entry and the fix). */
export function buildPool(spec: PoolSpec): AddressPool | string[] {
  const ranges: IPRange[] = [];
  const problems: string[] = [];
  for (const entry of spec.entries) {
    const parsed = parseAddressEntry(entry, spec.skipCIDREnds);
    if (typeof parsed === "string") problems.push(parsed);
    else if (parsed.family === 4 && parsed.start === 0n && parsed.end === 0n) {
      problems.push(`"${entry}" asks for DHCP (kube-vip's 0.0.0.0/32); the metal provider allocates only from pools`);
    } else ranges.push(parsed);
  }
  if (problems.length > 0) return problems;
  const { entries: _e, skipCIDREnds: _s, ...rest } = spec;
  return { ...rest, ranges: mergeRanges(ranges) };
}

export function poolContains(pool: AddressPool, family: IPFamily, value: bigint): boolean {
  return pool.ranges.some((r) => r.family === family && r.start <= value && value <= r.end);
}

export const poolFamilies = (pool: AddressPool): Set<IPFamily> => new Set(pool.ranges.map((r) => r.family));

/** `pool "global"` or `pool for namespace "team-a"`, with its source. */
export function describePool(pool: Pick<AddressPool, "scope" | "source">): string {
  const name = pool.scope === GLOBAL_SCOPE ? `pool "global"` : `pool for namespace "${pool.scope}"`;
  return `${name} (${pool.source})`;
}

/**
 * What is free in a pool for one family, for messages: the first free stretches and the count
 * (`free: 192.0.2.5-192.0.2.9, 192.0.2.12 (6 of 16)`), or that none is. `held` are the family's taken addresses.
 */
export function describeFree(pool: AddressPool, family: IPFamily, held: Iterable<bigint>, maxStretches = 4): string {
  const name = family === 4 ? "IPv4" : "IPv6";
  const ranges = pool.ranges.filter((r) => r.family === family);
  const size = ranges.reduce((n, r) => n + rangeSize(r), 0n);
  if (size === 0n) return `it has no ${name} addresses`;
  const taken = [...new Set(held)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const stretches: IPRange[] = [];
  let free = size;
  for (const r of ranges) {
    let cursor = r.start;
    for (const h of taken) {
      if (h < r.start || h > r.end) continue;
      if (h > cursor) stretches.push({ family, start: cursor, end: h - 1n });
      cursor = h + 1n;
      free--;
    }
    if (cursor <= r.end) stretches.push({ family, start: cursor, end: r.end });
  }
  if (free === 0n) return `none of its ${size} ${name} addresses is free`;
  const shown = stretches.slice(0, maxStretches).map(formatRange);
  if (stretches.length > maxStretches) shown.push("…");
  return `free: ${shown.join(", ")} (${free} of ${size})`;
}
