/**
 * IPv4/IPv6 addresses and CIDRs, parsed the way upstream parses them (`k8s.io/utils/net` "sloppy" parsing:
 * IPv4 octets may carry leading zeros and are read as decimal), and the `--cluster-cidr` flag with upstream's
 * exact start-up errors (spec c.4).
 *
 * Addresses are bigints. An IPv4-mapped IPv6 address or network (`::ffff:10.0.0.0/104`) counts as IPv4, as it does
 * in Go (`To4()` succeeds): it prints, compares and decides dual stack as IPv4.
 */
import { goQuote } from "./go-format.ts";

export type IPFamily = 4 | 6;

export interface IPAddress {
  readonly family: IPFamily;
  readonly value: bigint;
}

/** A network as Go's `net.IPNet` holds it after `ParseCIDR`: the address masked to its prefix. */
export interface Cidr {
  readonly family: IPFamily;
  readonly network: bigint;
  readonly prefix: number;
}

/** `invalid CIDR address: <text>` — Go's `*net.ParseError` message. */
export class CidrParseError extends Error {
  override readonly name = "CidrParseError";
  constructor(readonly text: string) {
    super(`invalid CIDR address: ${text}`);
  }
}

/** `--cluster-cidr` cannot be used; the message is upstream's start error, word for word. */
export class ClusterCIDRError extends Error {
  override readonly name = "ClusterCIDRError";
}

const bitsOf = (family: IPFamily): number => (family === 4 ? 32 : 128);

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part)) return undefined;
    const n = Number.parseInt(part, 10);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseGroups(text: string): bigint[] | undefined {
  if (text === "") return [];
  const groups: bigint[] = [];
  const parts = text.split(":");
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIPv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
      continue;
    }
    if (!/^[0-9a-fA-F]+$/.test(part)) return undefined;
    const n = Number.parseInt(part, 16);
    if (n > 0xffff) return undefined;
    groups.push(BigInt(n));
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0] ?? "");
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? "") : [];
  if (!head || !tail) return undefined;
  // An embedded IPv4 address may only end the address.
  if (halves.length === 2 && (halves[0] ?? "").includes(".")) return undefined;
  const count = head.length + tail.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const groups = [...head, ...new Array<bigint>(8 - count).fill(0n), ...tail];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

function isV4Mapped(value: bigint): boolean {
  return value >> 32n === 0xffffn;
}

/** Parses an IP address (no zone); `undefined` when it is not one. IPv4-mapped IPv6 comes back as IPv4. */
export function parseIP(text: string): IPAddress | undefined {
  if (!text.includes(":")) {
    const v4 = parseIPv4(text);
    return v4 === undefined ? undefined : { family: 4, value: v4 };
  }
  const v6 = parseIPv6(text);
  if (v6 === undefined) return undefined;
  return isV4Mapped(v6) ? { family: 4, value: v6 & 0xffffffffn } : { family: 6, value: v6 };
}

function maskOf(family: IPFamily, prefix: number): bigint {
  const bits = bitsOf(family);
  return ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/** Parses `address/prefix` like upstream's `ParseCIDRSloppy`; throws `CidrParseError`. */
export function parseCIDR(text: string): Cidr {
  const slash = text.indexOf("/");
  if (slash < 0) throw new CidrParseError(text);
  const addr = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const isV6 = addr.includes(":");
  const value = isV6 ? parseIPv6(addr) : parseIPv4(addr);
  const bits = isV6 ? 128 : 32;
  if (value === undefined || !/^[0-9]+$/.test(prefixText)) throw new CidrParseError(text);
  const prefix = Number.parseInt(prefixText, 10);
  if (prefix > bits) throw new CidrParseError(text);
  const network = value & maskOf(isV6 ? 6 : 4, prefix);
  if (isV6 && isV4Mapped(network)) return { family: 4, network: network & 0xffffffffn, prefix: prefix - 96 };
  return { family: isV6 ? 6 : 4, network, prefix };
}

/** `parseCIDR` that answers `undefined` instead of throwing. */
export function tryParseCIDR(text: string): Cidr | undefined {
  try {
    return parseCIDR(text);
  } catch {
    return undefined;
  }
}

/** The highest address of the network (all host bits set). */
export function lastAddress(cidr: Cidr): bigint {
  return cidr.network | (((1n << BigInt(bitsOf(cidr.family))) - 1n) ^ maskOf(cidr.family, cidr.prefix));
}

/** Go `IPNet.Contains`: an address of the other family is never inside. */
export function cidrContains(cidr: Cidr, address: IPAddress): boolean {
  if (cidr.family !== address.family) return false;
  return (address.value & maskOf(cidr.family, cidr.prefix)) === cidr.network;
}

function formatIPv6(value: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups (the first on a tie) becomes `::` (RFC 5952, Go's IP.String).
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

/** Go's spelling of an address: dotted IPv4, or canonical compressed lower-case IPv6. */
export function formatIP(address: IPAddress): string {
  if (address.family === 6) return formatIPv6(address.value);
  const v = address.value;
  return [24n, 16n, 8n, 0n].map((shift) => Number((v >> shift) & 0xffn)).join(".");
}

/** The normalised form (`10.0.0.1/24` → `10.0.0.0/24`), as Go's `IPNet.String()`. */
export function formatCIDR(cidr: Cidr): string {
  return `${formatIP({ family: cidr.family, value: cidr.network })}/${cidr.prefix}`;
}

/**
 * Parses `--cluster-cidr` as upstream's route controller start does: trim, split on `,` (pieces are not trimmed),
 * every piece a CIDR; more than one must be dual stack; at most two. Throws `ClusterCIDRError` with upstream's
 * exact messages (including the unclosed parenthesis). An empty value fails like any unparsable piece.
 */
export function parseClusterCIDRs(value: string): Cidr[] {
  const cidrs = value
    .trim()
    .split(",")
    .map((piece) => {
      try {
        return parseCIDR(piece);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        throw new ClusterCIDRError(`failed to parse cidr value:${goQuote(piece)} with error:${detail}`, {
          cause: err,
        });
      }
    });
  const dualStack = cidrs.some((c) => c.family === 4) && cidrs.some((c) => c.family === 6);
  if (cidrs.length > 1 && !dualStack) {
    throw new ClusterCIDRError(
      `len of ClusterCIDRs==${cidrs.length} and they are not configured as dual stack (at least one from each IPFamily`,
    );
  }
  if (cidrs.length > 2) {
    throw new ClusterCIDRError(`length of clusterCIDRs is:${cidrs.length} more than max allowed of 2`);
  }
  return cidrs;
}
