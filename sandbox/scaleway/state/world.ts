/**
 * The emulated Scaleway organisation: one project (more may be added), its Instance servers, Elastic Metal servers
 * and IPAM IPs, keyed by UUID. Addresses are handed out in order from fixed ranges, UUIDs from the seeded random
 * source, so a seed repeats a run exactly.
 */
import type { Random } from "../../cloud/random.ts";
import type { BaremetalServer } from "./baremetal.ts";
import type { InstanceServer } from "./instance.ts";
import type { IpamIp } from "./ipam.ts";
import { LbWorld } from "./lb.ts";

/** The zones of each product, as the official SDK lists them (scaleway-sdk-js `api.gen.ts` `LOCALITY`). */
export const instanceZones = [
  "fr-par-1",
  "fr-par-2",
  "fr-par-3",
  "nl-ams-1",
  "nl-ams-2",
  "nl-ams-3",
  "pl-waw-1",
  "pl-waw-2",
  "pl-waw-3",
] as const;
export const baremetalZones = ["fr-par-1", "fr-par-2", "nl-ams-1", "nl-ams-2", "pl-waw-2", "pl-waw-3"] as const;
export const ipamRegions = ["fr-par", "nl-ams", "pl-waw"] as const;

/** `fr-par-1` → `fr-par`. */
export function regionOf(zone: string): string {
  return zone.replace(/-\d+$/, "");
}

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly organizationId: string;
  readonly created: number;
}

export interface WorldOptions {
  readonly now: () => number;
  readonly random: Random;
}

export class World {
  readonly now: () => number;
  readonly random: Random;
  readonly organizationId: string;
  readonly projects = new Map<string, Project>();
  /** The project resources are made in when no other is named. */
  readonly defaultProject: Project;
  readonly instances = new Map<string, InstanceServer>();
  readonly baremetal = new Map<string, BaremetalServer>();
  readonly ips = new Map<string, IpamIp>();
  /** The Load Balancer API's resources. */
  readonly lb = new LbWorld();
  #addresses = 0;

  constructor(o: WorldOptions) {
    this.now = o.now;
    this.random = o.random;
    this.organizationId = this.uuid();
    this.defaultProject = this.addProject("default");
  }

  addProject(name: string): Project {
    const project = { id: this.uuid(), name, organizationId: this.organizationId, created: this.now() };
    this.projects.set(project.id, project);
    return project;
  }

  /** A version-4 UUID from the seeded source. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.random() * 16).toString(16));
    hex[12] = "4";
    hex[16] = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
    const s = hex.join("");
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  /** The next address number: public IPv4s, IPv6s and private IPs all count from it. */
  nextAddress(): number {
    this.#addresses++;
    return this.#addresses;
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `51.15.<n>.<n>` from an address number. */
export function publicV4(n: number): string {
  return `51.15.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

export function publicV6(n: number): string {
  return `2001:bc8:1640:${n.toString(16)}::1`;
}
