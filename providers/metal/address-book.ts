/**
 * Who holds which load-balancer address: the provider's in-memory view of the allocations recorded on Services.
 *
 * Synchronous on purpose: a decision and the hold it leads to happen in one turn of the event loop, so parallel
 * `ensureLoadBalancer` calls (`--concurrent-service-syncs` above 1) can never pick the same free address.
 */
import { formatIP, type IPAddress, type IPFamily, parseIPStrict } from "../../net/ip.ts";

/** The ports a Service serves on its address (`TCP/80`), or `all` for a Service without ports. */
export type PortClaim = "all" | ReadonlySet<string>;

export interface Holder {
  /** `namespace/name`. */
  readonly key: string;
  readonly uid: string;
  readonly namespace: string;
  readonly ports: PortClaim;
}

export interface Allocation {
  readonly holder: Holder;
  /** Canonical addresses, in the Service's family order. */
  readonly ips: readonly string[];
}

export class AddressBook {
  readonly #holders = new Map<string, Holder[]>();
  readonly #byService = new Map<string, Allocation>();
  readonly #values: Record<IPFamily, Set<bigint>> = { 4: new Set(), 6: new Set() };

  allocationOf(key: string): Allocation | undefined {
    return this.#byService.get(key);
  }

  holdersOf(ip: string): readonly Holder[] {
    return this.#holders.get(ip) ?? [];
  }

  isHeld(family: IPFamily, value: bigint): boolean {
    return this.#values[family].has(value);
  }

  heldValues(family: IPFamily): ReadonlySet<bigint> {
    return this.#values[family];
  }

  /** Every allocation, for tests and diagnostics. */
  allocations(): Allocation[] {
    return [...this.#byService.values()];
  }

  get size(): number {
    return this.#byService.size;
  }

  /** The Service holds exactly `ips` (canonical) from now on; an empty list releases it. */
  set(holder: Holder, ips: readonly string[]): void {
    this.release(holder.key);
    if (ips.length === 0) return;
    this.#byService.set(holder.key, { holder, ips: [...ips] });
    for (const ip of ips) {
      const list = this.#holders.get(ip);
      if (list) list.push(holder);
      else {
        this.#holders.set(ip, [holder]);
        const parsed = parseIPStrict(ip) as IPAddress;
        this.#values[parsed.family].add(parsed.value);
      }
    }
  }

  /** Drops the Service's holds; returns what it held. */
  release(key: string): Allocation | undefined {
    const allocation = this.#byService.get(key);
    if (!allocation) return undefined;
    this.#byService.delete(key);
    for (const ip of allocation.ips) {
      const rest = (this.#holders.get(ip) ?? []).filter((h) => h.key !== key);
      if (rest.length > 0) {
        this.#holders.set(ip, rest);
        continue;
      }
      this.#holders.delete(ip);
      const parsed = parseIPStrict(ip) as IPAddress;
      this.#values[parsed.family].delete(parsed.value);
    }
    return allocation;
  }

  clear(): void {
    this.#holders.clear();
    this.#byService.clear();
    this.#values[4].clear();
    this.#values[6].clear();
  }
}

/** The first port both claims serve (`TCP/80`), `*` when either claims the whole address, or undefined. */
export function portClash(a: PortClaim, b: PortClaim): string | undefined {
  if (a === "all" || b === "all") return "*";
  for (const p of a) if (b.has(p)) return p;
  return undefined;
}

export const canonical = (family: IPFamily, value: bigint): string => formatIP({ family, value });
