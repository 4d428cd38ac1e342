/**
 * The allocation decision for one Service: which addresses it should hold, given what it holds, what it asks for,
 * its IP family policy and the pools. Pure and synchronous; the caller holds the result in the `AddressBook` in the
 * same turn. A refusal is a message written for a Warning event: it names the pool and says what is free.
 */

import { familyName, formatIP, type IPFamily, parseIPStrict } from "../../net/ip.ts";
import { type AddressBook, canonical, type Holder, portClash } from "./address-book.ts";
import { formatRange } from "./address-ranges.ts";
import type { AddressRequest, FamilyWants } from "./annotations.ts";
import {
  type AddressPool,
  describeFree,
  describePool,
  type PoolLookup,
  type PoolSet,
  poolContains,
  poolFamilies,
  poolFor,
  shareAllowed,
} from "./pools.ts";

export interface AllocationInput {
  readonly holder: Holder;
  readonly wants: FamilyWants;
  readonly request?: AddressRequest | undefined;
}

export type AllocationPlan =
  | { readonly ok: true; readonly ips: readonly string[]; readonly pool: AddressPool | undefined }
  | { readonly ok: false; readonly message: string };

const refuse = (message: string): AllocationPlan => ({ ok: false, message });

/** Decide the Service's addresses. What it already holds is kept unless a request or its families say otherwise. */
export function planAllocation(book: AddressBook, pools: PoolSet, input: AllocationInput): AllocationPlan {
  const { holder } = input;
  const lookup = poolFor(pools, holder.namespace);
  const pool = lookup.kind === "pool" ? lookup.pool : undefined;
  const current = book.allocationOf(holder.key);
  const held = current && current.holder.uid === holder.uid ? current.ips : [];
  if (input.request) return planRequest(book, pools, input, input.request, lookup, held);

  const order = familyOrder(input.wants, held, pool);
  const required = input.wants.policy === "PreferDualStack" ? [] : order;
  const out: string[] = [];
  for (const family of order) {
    const kept = held.find((ip) => parseIPStrict(ip)?.family === family);
    if (kept) {
      const clash = sharingConflict(book, pools, kept, holder, false);
      if (clash) return refuse(`its ports now clash on the shared address ${kept}: ${clash}; change the ports`);
      out.push(kept);
      continue;
    }
    if (!pool) return refuse(noPool(lookup, holder.namespace));
    const picked = pickFree(book, pool, family);
    if (picked !== undefined) out.push(picked);
    else if (required.includes(family)) return refuse(exhausted(book, pool, family, input.wants));
  }
  if (out.length === 0) {
    if (!pool) return refuse(noPool(lookup, holder.namespace));
    const family = order[0] ?? 4;
    return refuse(exhausted(book, pool, family, input.wants));
  }
  return { ok: true, ips: out, pool };
}

/** Families to fill, in order. Unset `ipFamilies` follows what is held, then the pool (IPv4 first). */
function familyOrder(wants: FamilyWants, held: readonly string[], pool: AddressPool | undefined): IPFamily[] {
  const heldFamilies = held.flatMap((ip) => parseIPStrict(ip)?.family ?? []);
  const available = pool ? poolFamilies(pool) : new Set<IPFamily>();
  const first = wants.families[0] ?? heldFamilies[0] ?? (available.has(4) || !available.has(6) ? 4 : 6);
  if (wants.policy === "SingleStack") return [first];
  return [first, first === 4 ? 6 : 4];
}

function planRequest(
  book: AddressBook,
  pools: PoolSet,
  input: AllocationInput,
  request: AddressRequest,
  lookup: PoolLookup,
  held: readonly string[],
): AllocationPlan {
  const { holder, wants } = input;
  const from = `(from ${request.source})`;
  const parsed = [];
  for (const text of request.ips) {
    const ip = parseIPStrict(text);
    if (!ip) return refuse(`requested address "${text}" ${from} is not an IP address`);
    parsed.push(ip);
  }
  for (const family of [4, 6] as const) {
    const same = parsed.filter((ip) => ip.family === family);
    if (same.length > 1) {
      return refuse(`${request.source} names ${same.length} ${familyName(family)} addresses; give one per family`);
    }
  }
  const families = parsed.map((ip) => ip.family);
  if (wants.policy === "SingleStack" && parsed.length > 1) {
    return refuse(
      `the Service is SingleStack but ${request.source} names ${parsed.length} addresses; set spec.ipFamilyPolicy to PreferDualStack or RequireDualStack for two`,
    );
  }
  if (wants.policy === "RequireDualStack" && parsed.length < 2) {
    return refuse(
      `the Service is RequireDualStack but ${request.source} names only one address; give an IPv4 and an IPv6 one`,
    );
  }
  const allowed = wants.policy === "SingleStack" ? wants.families.slice(0, 1) : wants.families;
  const stray = families.find((f) => allowed.length > 0 && !allowed.includes(f));
  if (stray !== undefined) {
    return refuse(
      `${request.source} names an ${familyName(stray)} address but the Service's ipFamilies are ${wants.families.map(familyName).join(",")}`,
    );
  }
  const pool = lookup.kind === "pool" ? lookup.pool : undefined;
  const out: string[] = [];
  for (const ip of parsed) {
    const text = formatIP(ip);
    if (!held.includes(text)) {
      if (!pool)
        return refuse(`requested address ${text} ${from} cannot be checked: ${noPool(lookup, holder.namespace)}`);
      if (!poolContains(pool, ip.family, ip.value)) {
        const ranges = pool.ranges.filter((r) => r.family === ip.family).map(formatRange);
        const where =
          ranges.length > 0
            ? `its ${familyName(ip.family)} ranges are ${ranges.join(", ")}`
            : `it has no ${familyName(ip.family)} addresses`;
        return refuse(`requested address ${text} ${from} is not in ${describePool(pool)}; ${where}`);
      }
    }
    const clash = sharingConflict(book, pools, text, holder, !held.includes(text));
    if (clash) {
      const free = pool
        ? `; ${describePool(pool)} has ${describeFree(pool, ip.family, book.heldValues(ip.family))}`
        : "";
      return refuse(`requested address ${text} ${from} is in use: ${clash}${free}`);
    }
    out.push(text);
  }
  const order = wants.families.length > 0 ? wants.families : families;
  out.sort((a, b) => order.indexOf(parseIPStrict(a)!.family) - order.indexOf(parseIPStrict(b)!.family));
  return { ok: true, ips: out, pool };
}

/**
 * Why `holder` may not hold `ip` next to its other holders, or undefined when it may. Joining an address needs
 * sharing allowed for every party; keeping one (`joining` false) only needs the ports to stay apart.
 */
export function sharingConflict(
  book: AddressBook,
  pools: PoolSet,
  ip: string,
  holder: Holder,
  joining: boolean,
): string | undefined {
  const others = book.holdersOf(ip).filter((h) => h.key !== holder.key);
  if (others.length === 0) return undefined;
  if (joining && !shareAllowed(pools, holder.namespace)) {
    return `held by Service ${others[0]!.key}, and sharing is not allowed for namespace "${holder.namespace}"`;
  }
  for (const other of others) {
    if (joining && !shareAllowed(pools, other.namespace)) {
      return `held by Service ${other.key}, whose namespace "${other.namespace}" does not allow sharing`;
    }
    const port = portClash(holder.ports, other.ports);
    if (port === "*") return `held by Service ${other.key}, and a Service without ports takes the whole address`;
    if (port) return `held by Service ${other.key}, which also serves ${port}`;
  }
  return undefined;
}

/** The first (or, descending, last) address of the family nobody holds. */
function pickFree(book: AddressBook, pool: AddressPool, family: IPFamily): string | undefined {
  const ranges = pool.ranges.filter((r) => r.family === family);
  if (pool.descending) ranges.reverse();
  const usable = (v: bigint) =>
    !book.isHeld(family, v) && !(pool.avoidBuggyIPs && family === 4 && ((v & 0xffn) === 0n || (v & 0xffn) === 255n));
  for (const r of ranges) {
    if (pool.descending) {
      for (let v = r.end; v >= r.start; v--) if (usable(v)) return canonical(family, v);
    } else {
      for (let v = r.start; v <= r.end; v++) if (usable(v)) return canonical(family, v);
    }
  }
  return undefined;
}

function exhausted(book: AddressBook, pool: AddressPool, family: IPFamily, wants: FamilyWants): string {
  const why = wants.policy === "RequireDualStack" ? " (the Service is RequireDualStack)" : "";
  return `no free ${familyName(family)} address in ${describePool(pool)}${why}: ${describeFree(pool, family, book.heldValues(family))}`;
}

function noPool(lookup: PoolLookup, namespace: string): string {
  if (lookup.kind === "broken") {
    const scope = lookup.scope === "global" ? `the global pool` : `the pool for namespace "${lookup.scope}"`;
    return `${scope} is misconfigured: ${lookup.problems.join("; ")}`;
  }
  return `no address pool serves namespace "${namespace}": configure loadBalancer.global or loadBalancer.namespaces.${namespace} in the cloud-config, or cidr-global / range-global in the kube-vip ConfigMap`;
}
