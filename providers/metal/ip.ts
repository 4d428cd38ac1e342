/**
 * IP addresses as numbers, so pools can be scanned, compared and summarised without a library: IPv4 and IPv6
 * literals, CIDRs and `start-end` ranges, and one canonical text form per address (RFC 5952 for IPv6) that is the
 * key of every allocation. Two spellings of one address (`2001:DB8::1`, `2001:db8:0::1`) are the same key.
 */

export type Family = 4 | 6;

export interface IP {
  readonly family: Family;
  readonly value: bigint;
}

/** An inclusive range of addresses of one family. */
export interface IPRange {
  readonly family: Family;
  readonly start: bigint;
  readonly end: bigint;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

export const familyName = (family: Family): "IPv4" | "IPv6" => (family === 4 ? "IPv4" : "IPv6");

/** `IPv4`/`IPv6` as Kubernetes spells them in `spec.ipFamilies`; anything else is undefined. */
export function familyOf(name: string): Family | undefined {
  return name === "IPv4" ? 4 : name === "IPv6" ? 6 : undefined;
}

/** Dotted quad without leading zeros (as Go and Kubernetes validation accept), or an IPv6 literal without zone. */
export function parseIP(text: string): IP | undefined {
  if (text.includes(":")) {
    const value = parseV6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseV4(text);
  return value === undefined ? undefined : { family: 4, value };
}

function parseV4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseV6(text: string): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): number[] | undefined => {
    if (half === undefined || half === "") return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes(".")) {
        const v4 = parseV4(part);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) out.push(Number.parseInt(part, 16));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (head === undefined || tail === undefined) return undefined;
  const compressed = halves.length === 2;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  let value = 0n;
  for (const g of [...head, ...new Array<number>(compressed ? missing : 0).fill(0), ...tail]) {
    value = (value << 16n) | BigInt(g);
  }
  return value;
}

/** The canonical text: dotted quad, or RFC 5952 (lower case, the longest run of two or more zero groups as `::`). */
export function formatIP(ip: IP): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join(".");
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

/** The canonical text of an address literal, or undefined when it is not one. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIP(text.trim());
  return ip && formatIP(ip);
}

export interface CIDR {
  readonly family: Family;
  readonly base: bigint;
  readonly prefix: number;
}

/** `address/prefix`; the address must be the network's first address (as Kubernetes validation requires). */
export function parseCIDR(text: string): CIDR | string {
  const [addr = "", len, ...rest] = text.trim().split("/");
  const ip = parseIP(addr);
  if (!ip || len === undefined || rest.length > 0)
    return `"${text}" is not a CIDR such as 192.0.2.0/24 or 2001:db8::/120`;
  const bits = BITS[ip.family];
  if (!/^(0|[1-9][0-9]{0,2})$/.test(len) || Number(len) > bits) {
    return `"${text}" has an invalid prefix length; use 0 to ${bits}`;
  }
  const prefix = Number(len);
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((ip.value & hostMask) !== 0n) {
    const network = formatIP({ family: ip.family, value: ip.value & ~hostMask });
    return `"${text}" has host bits set; did you mean ${network}/${prefix}?`;
  }
  return { family: ip.family, base: ip.value, prefix };
}

/**
 * The addresses of a CIDR. `skipEnds` leaves out an IPv4 network's network and broadcast addresses (kept for /31
 * and /32) and an IPv6 network's all-zero address, the Subnet-Router anycast address (kept for /127 and /128).
 */
export function cidrRange(cidr: CIDR, skipEnds: boolean): IPRange {
  const bits = BITS[cidr.family];
  const last = cidr.base + (1n << BigInt(bits - cidr.prefix)) - 1n;
  if (skipEnds && cidr.family === 4 && cidr.prefix <= 30) {
    return { family: 4, start: cidr.base + 1n, end: last - 1n };
  }
  if (skipEnds && cidr.family === 6 && cidr.prefix <= 126) return { family: 6, start: cidr.base + 1n, end: last };
  return { family: cidr.family, start: cidr.base, end: last };
}

/** `start-end`, both of one family, start not after end. */
export function parseRange(text: string): IPRange | string {
  const parts = text.trim().split("-");
  const start = parts.length === 2 ? parseIP(parts[0]!.trim()) : undefined;
  const end = parts.length === 2 ? parseIP(parts[1]!.trim()) : undefined;
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
  const ip = parseIP(text.trim());
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
