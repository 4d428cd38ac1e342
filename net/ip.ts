/**
 * IPv4 and IPv6 addresses as numbers, for the controllers (node IPs, cluster CIDRs, source ranges) and the
 * providers (address pools): parsing, Go's spelling, and Kubernetes' names of the families.
 *
 * Two dialects read a literal; neither takes a zone (`fe80::1%eth0`), brackets or surrounding space:
 * - `sloppy`, as upstream reads node IPs and CIDRs (`k8s.io/utils/net` "sloppy" parsing, Go's parser before
 *   1.17): an IPv4 field may carry leading zeros and is read as decimal (`010.0.0.1` is `10.0.0.1`); an IPv6
 *   group is any run of hex digits worth at most `ffff` (`00001`).
 * - `strict`, as Kubernetes validation accepts addresses and as address pools are written: no leading zero in an
 *   IPv4 field, at most four hex digits in an IPv6 group.
 *
 * `parseIP` (sloppy) answers an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as IPv4, as Go's `To4()` does, so it
 * prints, compares and counts as IPv4. `parseIPStrict` keeps it IPv6 (`::ffff:102:304`).
 */

export type IPFamily = 4 | 6;

export interface IPAddress {
  readonly family: IPFamily;
  readonly value: bigint;
}

export type IPDialect = "sloppy" | "strict";

interface Grammar {
  /** One dotted-quad field; its value must also be at most 255. */
  readonly v4Field: RegExp;
  /** One IPv6 group; its value must also be at most `ffff`. */
  readonly v6Group: RegExp;
  /** Whether an embedded IPv4 may end the part before `::`. */
  readonly v4BeforeEllipsis: boolean;
}

const GRAMMARS: Record<IPDialect, Grammar> = {
  sloppy: { v4Field: /^[0-9]+$/, v6Group: /^[0-9a-fA-F]+$/, v4BeforeEllipsis: false },
  // `v4BeforeEllipsis` keeps what the metal pools have always accepted (`1.2.3.4::` is `102:304::`); Go refuses it.
  strict: { v4Field: /^(0|[1-9][0-9]{0,2})$/, v6Group: /^[0-9a-fA-F]{1,4}$/, v4BeforeEllipsis: true },
};

export const bitsOf = (family: IPFamily): number => (family === 4 ? 32 : 128);

function parseIPv4(text: string, grammar: Grammar): bigint | undefined {
  const fields = text.split(".");
  if (fields.length !== 4) return undefined;
  let value = 0n;
  for (const field of fields) {
    if (!grammar.v4Field.test(field)) return undefined;
    const n = Number(field);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** The groups of one side of `::`; a dotted IPv4 may stand for the last two when `mayEndInIPv4`. */
function parseGroups(text: string, mayEndInIPv4: boolean, grammar: Grammar): bigint[] | undefined {
  if (text === "") return [];
  const parts = text.split(":");
  const groups: bigint[] = [];
  for (const [i, part] of parts.entries()) {
    if (mayEndInIPv4 && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIPv4(part, grammar);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
      continue;
    }
    if (!grammar.v6Group.test(part)) return undefined;
    const n = Number.parseInt(part, 16);
    if (n > 0xffff) return undefined;
    groups.push(BigInt(n));
  }
  return groups;
}

function parseIPv6(text: string, grammar: Grammar): bigint | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const [before = "", after] = halves;
  const compressed = after !== undefined;
  const head = parseGroups(before, !compressed || grammar.v4BeforeEllipsis, grammar);
  const tail = compressed ? parseGroups(after, true, grammar) : [];
  if (!head || !tail) return undefined;
  const count = head.length + tail.length;
  // Without `::` all eight groups are spelled out; with it, `::` stands for at least one zero group.
  if (compressed ? count > 7 : count !== 8) return undefined;
  const groups = [...head, ...new Array<bigint>(8 - count).fill(0n), ...tail];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** An address literal as written: family 6 exactly when it contains `:` (IPv4-mapped included). */
export function parseIPLiteral(text: string, dialect: IPDialect): IPAddress | undefined {
  const grammar = GRAMMARS[dialect];
  if (!text.includes(":")) {
    const v4 = parseIPv4(text, grammar);
    return v4 === undefined ? undefined : { family: 4, value: v4 };
  }
  const v6 = parseIPv6(text, grammar);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

/** `::ffff:a.b.c.d`. */
export function isIPv4Mapped(ip: IPAddress): boolean {
  return ip.family === 6 && ip.value >> 32n === 0xffffn;
}

/** Upstream's reading of an address (sloppy dialect); IPv4-mapped IPv6 comes back as IPv4. */
export function parseIP(text: string): IPAddress | undefined {
  const ip = parseIPLiteral(text, "sloppy");
  if (!ip || !isIPv4Mapped(ip)) return ip;
  return { family: 4, value: ip.value & 0xffffffffn };
}

/** Validation's reading of an address (strict dialect); IPv4-mapped IPv6 stays IPv6. */
export function parseIPStrict(text: string): IPAddress | undefined {
  return parseIPLiteral(text, "strict");
}

export function ipEqual(a: IPAddress, b: IPAddress): boolean {
  return a.family === b.family && a.value === b.value;
}

/** `0.0.0.0` or `::`. */
export function isUnspecified(ip: IPAddress): boolean {
  return ip.value === 0n;
}

/**
 * Go's spelling (`IP.String`): dotted IPv4, or lower-case IPv6 with the first longest run of two or more zero
 * groups written `::` (RFC 5952).
 */
export function formatIP(ip: IPAddress): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => Number((ip.value >> shift) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

/** The canonical text of a strictly read address literal (surrounding space ignored), or undefined. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIPStrict(text.trim());
  return ip && formatIP(ip);
}

/** `IPv4`/`IPv6`, as Kubernetes spells families in `spec.ipFamilies`. */
export const familyName = (family: IPFamily): "IPv4" | "IPv6" => (family === 4 ? "IPv4" : "IPv6");

/** The family a `spec.ipFamilies` entry names; anything else is undefined. */
export function familyOf(name: string): IPFamily | undefined {
  return name === "IPv4" ? 4 : name === "IPv6" ? 6 : undefined;
}
