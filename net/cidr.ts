/**
 * CIDRs as upstream reads them (`k8s.io/utils/net` `ParseCIDRSloppy`, see `ip.ts` for the sloppy dialect): the
 * address is masked to its prefix, and an IPv4-mapped IPv6 network (`::ffff:10.0.0.0/104`) counts as IPv4, as it
 * does in Go: it prints, compares and decides dual stack as IPv4.
 */
import { bitsOf, formatIP, type IPAddress, type IPFamily, isIPv4Mapped, parseIPLiteral } from "./ip.ts";

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

/** The network bits of a `/prefix` of the family, set. */
export function maskOf(family: IPFamily, prefix: number): bigint {
  const bits = bitsOf(family);
  return ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/** Parses `address/prefix` like upstream's `ParseCIDRSloppy`; throws `CidrParseError`. */
export function parseCIDR(text: string): Cidr {
  const slash = text.indexOf("/");
  if (slash < 0) throw new CidrParseError(text);
  const ip = parseIPLiteral(text.slice(0, slash), "sloppy");
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^[0-9]+$/.test(prefixText)) throw new CidrParseError(text);
  const prefix = Number.parseInt(prefixText, 10);
  if (prefix > bitsOf(ip.family)) throw new CidrParseError(text);
  const network = { family: ip.family, value: ip.value & maskOf(ip.family, prefix) };
  if (isIPv4Mapped(network)) return { family: 4, network: network.value & 0xffffffffn, prefix: prefix - 96 };
  return { family: ip.family, network: network.value, prefix };
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

/** The normalised form (`10.0.0.1/24` → `10.0.0.0/24`), as Go's `IPNet.String()`. */
export function formatCIDR(cidr: Cidr): string {
  return `${formatIP({ family: cidr.family, value: cidr.network })}/${cidr.prefix}`;
}
