/**
 * IPv4 address pools: the cloud hands out load-balancer and machine addresses from CIDRs, each address to at most
 * one owner at a time, lowest free address first (so a fresh cloud always gives the same addresses).
 */
import { isIP } from "node:net";

export class AddressPool {
  readonly cidr: string;
  readonly #first: number;
  readonly #size: number;
  readonly #used = new Set<number>();
  /** Where the next search starts; everything below it is known to be in use. */
  #cursor = 0;

  /** Throws on anything but an IPv4 CIDR. For prefixes up to /30 the network and broadcast addresses are skipped. */
  constructor(cidr: string) {
    const [ip, bits, ...rest] = cidr.split("/");
    const prefix = Number(bits);
    const base = ip === undefined ? undefined : ipv4ToNumber(ip);
    if (base === undefined || rest.length > 0 || !/^\d{1,2}$/.test(bits ?? "") || prefix > 32) {
      throw new Error(`address pool "${cidr}" is not an IPv4 CIDR such as 203.0.113.0/24`);
    }
    const span = 2 ** (32 - prefix);
    const network = base - (base % span);
    const skipEnds = prefix <= 30;
    this.cidr = cidr;
    this.#first = skipEnds ? network + 1 : network;
    this.#size = skipEnds ? span - 2 : span;
  }

  /** The lowest free address, now taken; undefined when the pool is exhausted. */
  allocate(): string | undefined {
    for (let i = this.#cursor; i < this.#size; i++) {
      if (!this.#used.has(i)) {
        this.#used.add(i);
        this.#cursor = i + 1;
        return numberToIpv4(this.#first + i);
      }
    }
    return undefined;
  }

  /** Take a given address if it is in the pool and free. Answers whether it is now held by the caller. */
  reserve(address: string): boolean {
    const i = this.#indexOf(address);
    if (i === undefined || this.#used.has(i)) return false;
    this.#used.add(i);
    return true;
  }

  /** Give an address back; addresses outside the pool or not taken are ignored. */
  release(address: string): void {
    const i = this.#indexOf(address);
    if (i === undefined || !this.#used.delete(i)) return;
    if (i < this.#cursor) this.#cursor = i;
  }

  get free(): number {
    return this.#size - this.#used.size;
  }

  #indexOf(address: string): number | undefined {
    const n = ipv4ToNumber(address);
    if (n === undefined) return undefined;
    const i = n - this.#first;
    return i >= 0 && i < this.#size ? i : undefined;
  }
}

function ipv4ToNumber(ip: string): number | undefined {
  if (isIP(ip) !== 4) return undefined;
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

function numberToIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}

/** True for `addr/prefix` with an IPv4 or IPv6 address and a prefix that fits it. */
export function isCIDR(value: string): boolean {
  const [ip, bits, ...rest] = value.split("/");
  if (ip === undefined || bits === undefined || rest.length > 0 || !/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(ip);
  if (family === 0) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
