/** IPv4 addresses and CIDRs as numbers, for the private networks' ranges, subnets and routes. */

export interface Cidr4 {
  /** The network address, as an unsigned 32-bit number. */
  readonly base: number;
  readonly bits: number;
}

/** The address as a number, or `undefined` when `text` is not a dotted quad. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

/** `a.b.c.d/n` with no host bits set, or `undefined`. */
export function parseCidr4(text: string): Cidr4 | undefined {
  const [ip = "", bits = "", ...rest] = text.split("/");
  const base = parseIPv4(ip);
  const n = Number(bits);
  if (base === undefined || rest.length > 0 || !/^\d{1,2}$/.test(bits) || n > 32) return undefined;
  return base % size({ base, bits: n }) === 0 ? { base, bits: n } : undefined;
}

export function formatCidr4(c: Cidr4): string {
  return `${formatIPv4(c.base)}/${c.bits}`;
}

export const size = (c: Cidr4): number => 2 ** (32 - c.bits);

export const contains = (c: Cidr4, ip: number): boolean => ip >= c.base && ip < c.base + size(c);

export const within = (inner: Cidr4, outer: Cidr4): boolean =>
  contains(outer, inner.base) && inner.base + size(inner) <= outer.base + size(outer);

export const overlaps = (a: Cidr4, b: Cidr4): boolean => within(a, b) || within(b, a);

/** The private ranges a Hetzner network may use (RFC 1918). */
export const privateRanges: readonly Cidr4[] = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"].map(
  (t) => parseCidr4(t) as Cidr4,
);
