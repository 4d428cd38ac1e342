/**
 * Node addresses and kubelet's provided node IP (spec d.0, d.1).
 *
 * IPs are compared the way upstream compares them: parsed into 16 bytes (IPv4 as IPv4-mapped IPv6, so
 * `1.2.3.4` equals `::ffff:1.2.3.4`), with leading zeros in IPv4 fields tolerated (`010.0.0.1` is `10.0.0.1`).
 * Error messages render IPs in canonical form (`10.0.0.1`, `fd00::1`) and quote values Go-style, as upstream does.
 */
import type { NodeAddress } from "../../kube/objects.ts";

/** An IP as 16 bytes; IPv4 is stored IPv4-mapped. */
export type IPBytes = Uint8Array;

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Parse an IPv4 or IPv6 literal (no zone, no brackets); `undefined` when it is not one. */
export function parseIP(text: string): IPBytes | undefined {
  const dot = text.indexOf(".");
  const colon = text.indexOf(":");
  if (dot < 0 && colon < 0) return undefined;
  // The first separator decides the family, so `1.2.3.4::` is a malformed IPv4, not an IPv6.
  if (colon < 0 || (dot >= 0 && dot < colon)) return parseIPv4(text);
  return parseIPv6(text);
}

function parseIPv4(text: string): IPBytes | undefined {
  const fields = text.split(".");
  if (fields.length !== 4) return undefined;
  const out = new Uint8Array(16);
  out.set(V4_MAPPED_PREFIX);
  for (const [i, field] of fields.entries()) {
    if (!/^[0-9]+$/.test(field)) return undefined;
    const value = Number(field);
    if (value > 255) return undefined;
    out[12 + i] = value;
  }
  return out;
}

function parseHexGroups(parts: readonly string[]): number[] | undefined {
  const groups: number[] = [];
  for (const part of parts) {
    if (!/^[0-9a-fA-F]+$/.test(part)) return undefined;
    const value = Number.parseInt(part, 16);
    if (value > 0xffff) return undefined;
    groups.push(value);
  }
  return groups;
}

/** Hex groups, then an optional trailing dotted IPv4 that counts as two groups. */
function parseSide(text: string, mayEndInIPv4: boolean): number[] | undefined {
  if (text === "") return [];
  const parts = text.split(":");
  const last = parts.at(-1) ?? "";
  if (mayEndInIPv4 && last.includes(".")) {
    const v4 = parseIPv4(last);
    const head = parseHexGroups(parts.slice(0, -1));
    if (!v4 || !head) return undefined;
    return [...head, (v4[12]! << 8) | v4[13]!, (v4[14]! << 8) | v4[15]!];
  }
  return parseHexGroups(parts);
}

function parseIPv6(text: string): IPBytes | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const [before = "", after] = halves;
  const hasEllipsis = after !== undefined;
  const head = parseSide(before, !hasEllipsis);
  const tail = hasEllipsis ? parseSide(after, true) : [];
  if (!head || !tail) return undefined;
  const count = head.length + tail.length;
  // Without `::` all eight groups are spelled out; with it, `::` stands for at least one zero group.
  if (hasEllipsis ? count > 7 : count !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - count).fill(0), ...tail];
  const out = new Uint8Array(16);
  for (const [i, g] of groups.entries()) {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  }
  return out;
}

function isV4Mapped(ip: IPBytes): boolean {
  return V4_MAPPED_PREFIX.every((b, i) => ip[i] === b);
}

/** Upstream's family test: anything that is not IPv4 (or IPv4-mapped) is IPv6. */
export function isIPv6(ip: IPBytes): boolean {
  return !isV4Mapped(ip);
}

/** `0.0.0.0` or `::`. */
export function isUnspecified(ip: IPBytes): boolean {
  const v4 = isV4Mapped(ip);
  return ip.every((b, i) => b === 0 || (v4 && (i === 10 || i === 11)));
}

export function ipEqual(a: IPBytes, b: IPBytes): boolean {
  return a.every((byte, i) => byte === b[i]);
}

/** Canonical text: dotted IPv4, or IPv6 with the first longest run (≥ 2) of zero groups written `::`. */
export function formatIP(ip: IPBytes): string {
  if (isV4Mapped(ip)) return `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`;
  const groups = Array.from({ length: 8 }, (_, i) => (ip[2 * i]! << 8) | ip[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** Go's `%q`: double-quoted with Go escapes, so messages match upstream's byte for byte. */
export function goQuote(text: string): string {
  const simple: Record<string, string> = {
    '"': '\\"',
    "\\": "\\\\",
    "\x07": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
  };
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (simple[ch] !== undefined) out += simple[ch];
    else if (ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** The provided-node-ip annotation is malformed. `detail` is the reason without the prefix. */
export class NodeIPParseError extends Error {
  override readonly name = "NodeIPParseError";
  readonly value: string;
  readonly detail: string;
  constructor(value: string, detail: string) {
    super(`failed to parse node IP ${goQuote(value)}: ${detail}`);
    this.value = value;
    this.detail = detail;
  }
}

/** A provided node IP is not among the cloud's addresses for the instance. */
export class NodeIPNotInCloudError extends Error {
  override readonly name = "NodeIPNotInCloudError";
  /** Canonical form of the IP that matched nothing. */
  readonly ip: string;
  readonly cloudAddresses: readonly NodeAddress[];
  constructor(ip: string, cloudAddresses: readonly NodeAddress[]) {
    super(`failed to get node address from cloud provider that matches ip: ${ip}`);
    this.ip = ip;
    this.cloudAddresses = cloudAddresses;
  }
}

/**
 * Strict parse of `alpha.kubernetes.io/provided-node-ip`: split on `,` without trimming; one IP, or an
 * IPv4/IPv6 pair without an unspecified address. Throws `NodeIPParseError`.
 */
export function parseProvidedNodeIP(value: string): IPBytes[] {
  const ips: IPBytes[] = [];
  for (const piece of value.split(",")) {
    const ip = parseIP(piece);
    if (!ip) throw new NodeIPParseError(value, `could not parse ${goQuote(piece)}`);
    ips.push(ip);
  }
  const [first, second] = ips;
  if (ips.length > 2 || (first && second && isIPv6(first) === isIPv6(second))) {
    throw new NodeIPParseError(value, "must contain either a single IP or a dual-stack pair of IPs");
  }
  if (first && second && (isUnspecified(first) || isUnspecified(second))) {
    throw new NodeIPParseError(value, "dual-stack node IP cannot include '0.0.0.0' or '::'");
  }
  return ips;
}

/**
 * Upstream `GetNodeAddressesFromNodeIP`: the cloud addresses equal to each provided IP come first (in the
 * annotation's order, keeping the cloud's spelling and type) and become the only addresses of their types;
 * addresses of other types follow in cloud order. Throws `NodeIPParseError` or `NodeIPNotInCloudError`.
 */
export function getNodeAddressesFromNodeIP(
  providedNodeIP: string,
  cloudAddresses: readonly NodeAddress[],
): NodeAddress[] {
  const ips = parseProvidedNodeIP(providedNodeIP);
  const parsed = cloudAddresses.map((a) => parseIP(a.address));
  const out: NodeAddress[] = [];
  const enforcedTypes = new Set<string>();
  for (const ip of ips) {
    let matched = false;
    for (const [i, address] of cloudAddresses.entries()) {
      const cloudIP = parsed[i];
      if (cloudIP && ipEqual(cloudIP, ip)) {
        out.push({ type: address.type, address: address.address });
        enforcedTypes.add(address.type);
        matched = true;
      }
    }
    if (!matched) throw new NodeIPNotInCloudError(formatIP(ip), cloudAddresses);
  }
  for (const address of cloudAddresses) {
    if (!enforcedTypes.has(address.type)) out.push({ type: address.type, address: address.address });
  }
  return out;
}

/** Upstream `AddToNodeAddresses`: a copy of `list` plus each addition whose (type, address) is not yet present. */
export function addToNodeAddresses(list: readonly NodeAddress[], ...additions: NodeAddress[]): NodeAddress[] {
  const out = [...list];
  for (const add of additions) {
    if (!out.some((a) => a.type === add.type && a.address === add.address)) out.push(add);
  }
  return out;
}

/**
 * Upstream `nodeAddressesChangeDetected`, lossy on purpose: lengths differ ⇒ changed; otherwise each new entry
 * is compared with the last old address of its type, so order and duplicate types can hide a change.
 */
export function nodeAddressesChangeDetected(
  oldAddresses: readonly NodeAddress[],
  newAddresses: readonly NodeAddress[],
): boolean {
  if (oldAddresses.length !== newAddresses.length) return true;
  const byType = new Map<string, string>();
  for (const a of oldAddresses) byType.set(a.type, a.address);
  return newAddresses.some((a) => (byType.get(a.type) ?? "") !== a.address);
}
