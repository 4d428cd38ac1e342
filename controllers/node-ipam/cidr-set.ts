/**
 * One cluster CIDR cut into node subnets of one mask size, and which of them are taken (upstream:
 * pkg/controller/nodeipam/ipam/cidrset/cidr_set.go `CidrSet`). Subnet `i` is the cluster network with `i` in the
 * bits between the cluster's and the node's prefix. Allocation is round robin: the search starts after the subnet
 * handed out last, so a released subnet is not handed out again until the others have been.
 */

import { type Cidr, cidrContains, formatCIDR, lastAddress, maskOf } from "../../net/cidr.ts";
import { bitsOf } from "../../net/ip.ts";

/** Largest node-minus-cluster prefix difference for IPv6: upstream's bitmap limit, word for word its error. */
export const MAX_IPV6_PREFIX_DIFFERENCE = 16;
/** Ours: upstream has no IPv4 limit but a 512 MiB bitmap; 2^24 subnets (a 2 MiB bitmap) is room for any cluster. */
export const MAX_IPV4_PREFIX_DIFFERENCE = 24;

export class CidrSetError extends Error {
  override readonly name = "CidrSetError";
}

/** Upstream's `ErrCIDRRangeNoCIDRsRemaining`. */
export const NO_CIDRS_REMAINING =
  "CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range";

/** What the set reports as it changes (the cidrset metrics); every call names the set by its cluster CIDR. */
export interface CidrSetObserver {
  /** Subnets newly marked taken (by allocation or occupation). */
  allocated(label: string, count: number): void;
  released(label: string, count: number): void;
  /** Taken subnets over all subnets, 0–1. */
  usage(label: string, fraction: number): void;
  /** Taken subnets skipped before a free one was found. */
  tries(label: string, skipped: number): void;
  max(label: string, subnets: number): void;
}

export class CidrSet {
  readonly clusterCIDR: Cidr;
  readonly nodeMaskSize: number;
  /** How many node subnets the cluster CIDR holds. */
  readonly size: number;
  /** The cluster CIDR as text: the metrics' `clusterCIDR` label. */
  readonly label: string;
  readonly #used: Uint8Array;
  readonly #observer: CidrSetObserver | undefined;
  #allocated = 0;
  #next = 0;

  /** Throws `CidrSetError` when the node mask is shorter than the cluster's, longer than the family's, or too far. */
  constructor(clusterCIDR: Cidr, nodeMaskSize: number, observer?: CidrSetObserver) {
    const bits = bitsOf(clusterCIDR.family);
    const label = formatCIDR(clusterCIDR);
    if (!Number.isInteger(nodeMaskSize) || nodeMaskSize < clusterCIDR.prefix || nodeMaskSize > bits) {
      throw new CidrSetError(
        `node CIDR mask size ${nodeMaskSize} does not fit cluster CIDR ${label}: it must be between ${clusterCIDR.prefix} and ${bits}`,
      );
    }
    const difference = nodeMaskSize - clusterCIDR.prefix;
    if (clusterCIDR.family === 6 && difference > MAX_IPV6_PREFIX_DIFFERENCE) {
      throw new CidrSetError("New CIDR set failed; the node CIDR size is too big");
    }
    if (clusterCIDR.family === 4 && difference > MAX_IPV4_PREFIX_DIFFERENCE) {
      throw new CidrSetError(
        `node CIDR mask size ${nodeMaskSize} cuts cluster CIDR ${label} into more than 2^${MAX_IPV4_PREFIX_DIFFERENCE} subnets`,
      );
    }
    this.clusterCIDR = clusterCIDR;
    this.nodeMaskSize = nodeMaskSize;
    this.size = 2 ** difference;
    this.label = label;
    this.#used = new Uint8Array(Math.ceil(this.size / 8));
    this.#observer = observer;
    observer?.max(label, this.size);
    observer?.usage(label, 0);
  }

  /** How many subnets are taken. */
  get allocated(): number {
    return this.#allocated;
  }

  /** The next free subnet, now taken; throws `CidrSetError(NO_CIDRS_REMAINING)` when none is left. */
  allocateNext(): Cidr {
    if (this.#allocated === this.size) throw new CidrSetError(NO_CIDRS_REMAINING);
    let candidate = this.#next;
    let skipped = 0;
    while (this.#isUsed(candidate)) {
      candidate = (candidate + 1) % this.size;
      skipped++;
    }
    this.#next = (candidate + 1) % this.size;
    this.#set(candidate, true);
    this.#observer?.allocated(this.label, 1);
    this.#observer?.tries(this.label, skipped);
    this.#reportUsage();
    return this.#subnet(candidate);
  }

  /**
   * Marks every subnet `cidr` overlaps as taken; taking a taken one again is not an error. Throws `CidrSetError`
   * when `cidr` does not overlap the cluster CIDR.
   */
  occupy(cidr: Cidr): void {
    const [begin, end] = this.#indices(cidr);
    let count = 0;
    for (let i = begin; i <= end; i++) {
      if (this.#isUsed(i)) continue;
      this.#set(i, true);
      count++;
    }
    if (count > 0) this.#observer?.allocated(this.label, count);
    this.#reportUsage();
  }

  /** Frees every subnet `cidr` overlaps; freeing a free one is not an error. Throws like `occupy`. */
  release(cidr: Cidr): void {
    const [begin, end] = this.#indices(cidr);
    let count = 0;
    for (let i = begin; i <= end; i++) {
      if (!this.#isUsed(i)) continue;
      this.#set(i, false);
      count++;
    }
    if (count > 0) this.#observer?.released(this.label, count);
    this.#reportUsage();
  }

  /** Is the subnet holding `cidr`'s first address taken? False for an address outside the cluster CIDR. */
  isTaken(cidr: Cidr): boolean {
    if (!this.#overlaps(cidr)) return false;
    return this.#isUsed(this.#indexOf(cidr.network));
  }

  #overlaps(cidr: Cidr): boolean {
    if (cidr.family !== this.clusterCIDR.family) return false;
    const inside = cidrContains(this.clusterCIDR, { family: cidr.family, value: cidr.network });
    const around = cidrContains(cidr, { family: cidr.family, value: this.clusterCIDR.network });
    return inside || around;
  }

  /** First and last subnet index `cidr` covers (upstream: `getBeginningAndEndIndices`). */
  #indices(cidr: Cidr): [number, number] {
    if (!this.#overlaps(cidr)) {
      throw new CidrSetError(`cidr ${formatCIDR(cidr)} is out the range of cluster cidr ${this.label}`);
    }
    if (cidr.prefix <= this.clusterCIDR.prefix) return [0, this.size - 1];
    return [this.#indexOf(cidr.network), this.#indexOf(lastAddress(cidr))];
  }

  #indexOf(address: bigint): number {
    const shift = BigInt(bitsOf(this.clusterCIDR.family) - this.nodeMaskSize);
    return Number(((address ^ this.clusterCIDR.network) & maskOf(this.clusterCIDR.family, this.nodeMaskSize)) >> shift);
  }

  #subnet(index: number): Cidr {
    const shift = BigInt(bitsOf(this.clusterCIDR.family) - this.nodeMaskSize);
    return {
      family: this.clusterCIDR.family,
      network: this.clusterCIDR.network | (BigInt(index) << shift),
      prefix: this.nodeMaskSize,
    };
  }

  #isUsed(index: number): boolean {
    return ((this.#used[index >> 3] ?? 0) & (1 << (index & 7))) !== 0;
  }

  #set(index: number, used: boolean): void {
    const byte = this.#used[index >> 3] ?? 0;
    this.#used[index >> 3] = used ? byte | (1 << (index & 7)) : byte & ~(1 << (index & 7));
    this.#allocated += used ? 1 : -1;
  }

  #reportUsage(): void {
    this.#observer?.usage(this.label, this.#allocated / this.size);
  }
}
