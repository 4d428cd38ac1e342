/**
 * The emulated DigitalOcean account: its Droplets, load balancers, certificates, tags and firewalls, behind the
 * HTTP API and the control API alike. Time is injected: a load balancer turns `active` when `now` passes its
 * creation plus `lbActiveDelayMs`, read by whoever looks next (no timers).
 */
import type { Random } from "../../cloud/random.ts";
import type { Certificate } from "./certificates.ts";
import type { Droplet } from "./droplets.ts";
import type { Firewall } from "./firewalls.ts";
import type { LoadBalancer } from "./load-balancers.ts";

export interface WorldOptions {
  readonly now: () => number;
  readonly random: Random;
  /** How long a new load balancer stays `new` before it is `active` with an IP (ms); 0 ⇒ active at once. */
  readonly lbActiveDelayMs: number;
}

export class World {
  readonly now: () => number;
  readonly random: Random;
  lbActiveDelayMs: number;
  readonly droplets = new Map<number, Droplet>();
  readonly loadBalancers = new Map<string, LoadBalancer>();
  readonly certificates = new Map<string, Certificate>();
  readonly firewalls = new Map<string, Firewall>();
  /** Tag names in their canonical capitalization. */
  readonly tags = new Set<string>();
  #nextDroplet = 100_000_001;
  #nextHost = 2;
  #nextLbHost = 10;

  constructor(options: WorldOptions) {
    this.now = options.now;
    this.random = options.random;
    this.lbActiveDelayMs = options.lbActiveDelayMs;
  }

  dropletId(): number {
    return this.#nextDroplet++;
  }

  /** The next host number for a Droplet's addresses (public 192.0.2.0/24 and beyond, private 10.10.0.0/16). */
  hostNumber(): number {
    return this.#nextHost++;
  }

  /** The next load balancer address, from the documentation range 203.0.113.0/24. */
  lbIp(): string {
    const n = this.#nextLbHost++;
    if (n > 254) throw new Error("the emulator's load balancer address range 203.0.113.0/24 is used up");
    return `203.0.113.${n}`;
  }

  /** A random version-4 UUID, drawn from the seeded source so a seed repeats a run. */
  uuid(): string {
    const hex = (n: number) => Array.from({ length: n }, () => Math.floor(this.random() * 16).toString(16)).join("");
    const variant = "89ab"[Math.floor(this.random() * 4)];
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
  }

  iso(ms = this.now()): string {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
}
