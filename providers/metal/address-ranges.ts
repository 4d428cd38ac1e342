/**
 * Address pool entries as numbers, so pools can be scanned, compared and summarised: CIDRs, `start-end` ranges and
 * single addresses, read strictly (`net/ip.ts` `parseIPStrict`). An address's canonical text (`formatIP`, RFC 5952
 * for IPv6) is the key of every allocation: two spellings of one address (`2001:DB8::1`, `2001:db8:0::1`) are the
 * same key.
 */
import { maskOf } from "../../net/cidr.ts";
import { bitsOf, formatIP, type IPFamily, parseIPStrict } from "../../net/ip.ts";

/** An inclusive range of addresses of one family. */
export interface IPRange {
  readonly family: IPFamily;
  readonly start: bigint;
  readonly end: bigint;
}

/** A pool's CIDR: unlike upstream's reading (`net/cidr.ts`), host bits are refused, not masked away. */
export interface CIDR {
  readonly family: IPFamily;
  readonly base: bigint;
  readonly prefix: number;
}

/** `address/prefix`; the address must be the network's first address (as Kubernetes validation requires). */
export function parseCIDR(text: string): CIDR | string {
  const [addr = "", len, ...rest] = text.trim().split("/");
  const ip = parseIPStrict(addr);
  if (!ip || len === undefined || rest.length > 0)
    return `"${text}" is not a CIDR such as 192.0.2.0/24 or 2001:db8::/120`;
  const bits = bitsOf(ip.family);
  if (!/^(0|[1-9][0-9]{0,2})$/.test(len) || Number(len) > bits) {
    return `"${text}" has an invalid prefix length; use 0 to ${bits}`;
  }
  const prefix = Number(len);
  const network = ip.value & maskOf(ip.family, prefix);
  if (network !== ip.value) {
    return `"${text}" has host bits set; did you mean ${formatIP({ family: ip.family, value: network })}/${prefix}?`;
  }
  return { family: ip.family, base: ip.value, prefix };
}

/**
 * The addresses of a CIDR. `skipEnds` leaves out an IPv4 network's network and broadcast addresses (kept for /31
 * and /32) and an IPv6 network's all-zero address, the Subnet-Router anycast address (kept for /127 and /128).
 */
export function cidrRange(cidr: CIDR, skipEnds: boolean): IPRange {
  const last = cidr.base + (1n << BigInt(bitsOf(cidr.family) - cidr.prefix)) - 1n;
  if (skipEnds && cidr.family === 4 && cidr.prefix <= 30) {
    return { family: 4, start: cidr.base + 1n, end: last - 1n };
  }
  if (skipEnds && cidr.family === 6 && cidr.prefix <= 126) return { family: 6, start: cidr.base + 1n, end: last };
  return { family: cidr.family, start: cidr.base, end: last };
}

/** `start-end`, both of one family, start not after end. */
export function parseRange(text: string): IPRange | string {
  const parts = text.trim().split("-");
  const start = parts.length === 2 ? parseIPStrict(parts[0]!.trim()) : undefined;
  const end = parts.length === 2 ? parseIPStrict(parts[1]!.trim()) : undefined;
  if (!start || !end) return `"${text}" is not a range such as 192.0.2.10-192.0.2.20`;
  if (start.family !== end.family) return `"${text}" mixes IPv4 and IPv6; a range has one family`;
  if (start.value > end.value) return `"${text}" ends before it starts`;
  return { family: start.family, start: start.value, end: end.value };
}

/** One pool entry: a CIDR (`/` present) or a range. */
export function parseAddressEntry(text: string, skipCIDREnds: boolean): IPRange | string {
  if (text.includes("/")) {
    const cidr = parseCIDR(text);
    return typeof cidr === "string" ? cidr : cidrRange(cidr, skipCIDREnds);
  }
  if (text.includes("-")) return parseRange(text);
  const ip = parseIPStrict(text.trim());
  if (!ip) return `"${text}" is not a CIDR (192.0.2.0/24), a range (192.0.2.10-192.0.2.20) or an address`;
  return { family: ip.family, start: ip.value, end: ip.value };
}

/** Sorted, with overlapping and touching ranges of one family joined. */
export function mergeRanges(ranges: readonly IPRange[]): IPRange[] {
  const sorted = [...ranges].sort((a, b) =>
    a.family !== b.family ? a.family - b.family : a.start < b.start ? -1 : a.start > b.start ? 1 : 0,
  );
  const out: IPRange[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && last.family === r.family && r.start <= last.end + 1n) {
      if (r.end > last.end) out[out.length - 1] = { ...last, end: r.end };
    } else out.push(r);
  }
  return out;
}

export const rangeSize = (r: IPRange): bigint => r.end - r.start + 1n;

export function formatRange(r: IPRange): string {
  const start = formatIP({ family: r.family, value: r.start });
  return r.start === r.end ? start : `${start}-${formatIP({ family: r.family, value: r.end })}`;
}
