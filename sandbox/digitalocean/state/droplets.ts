/**
 * Droplets. The provider only reads them, so they are made here (by `main.ts`, the control API or a test), with
 * the addresses a Droplet with a VPC and IPv6 has: a public and a private IPv4 address and a public IPv6 one.
 */
import { DoError, notFound } from "../errors.ts";
import { regionSlugs, regionView, sizeSlugs, sizes, sizeView } from "./regions.ts";
import type { World } from "./world.ts";

export const dropletStatuses = ["new", "active", "off", "archive"] as const;
export type DropletStatus = (typeof dropletStatuses)[number];

export interface Droplet {
  readonly id: number;
  name: string;
  status: DropletStatus;
  readonly region: string;
  readonly size: string;
  readonly createdAt: number;
  tags: string[];
  readonly publicV4: string;
  readonly privateV4: string;
  readonly publicV6: string;
  readonly vpcUuid: string;
}

export interface DropletSpec {
  readonly name: string;
  readonly region?: string;
  readonly size?: string;
  readonly status?: DropletStatus;
  readonly tags?: readonly string[];
}

export function createDroplet(world: World, spec: DropletSpec): Droplet {
  const region = spec.region ?? "nyc3";
  const size = spec.size ?? "s-1vcpu-1gb";
  if (!regionSlugs.includes(region)) throw new DoError("unprocessable_entity", `region '${region}' is not available`);
  if (!sizeSlugs.includes(size)) throw new DoError("unprocessable_entity", `size '${size}' is not available`);
  const n = world.hostNumber();
  const droplet: Droplet = {
    id: world.dropletId(),
    name: spec.name,
    status: spec.status ?? "active",
    region,
    size,
    createdAt: world.now(),
    tags: [...(spec.tags ?? [])],
    // 192.0.2.0/24 then 198.51.100.0/24: the documentation ranges, so an address here is never a real host.
    publicV4: n < 255 ? `192.0.2.${n}` : `198.51.100.${n - 253}`,
    privateV4: `10.10.${Math.floor(n / 256)}.${n % 256}`,
    publicV6: `2001:db8:0:1::${n.toString(16)}`,
    vpcUuid: "5a4981aa-9653-4bd1-bef5-d6bff52042e4",
  };
  for (const tag of droplet.tags) world.tags.add(tag);
  world.droplets.set(droplet.id, droplet);
  return droplet;
}

export function getDroplet(world: World, id: number): Droplet {
  const droplet = world.droplets.get(id);
  if (!droplet) throw notFound();
  return droplet;
}

export function deleteDroplet(world: World, id: number): void {
  getDroplet(world, id);
  world.droplets.delete(id);
  for (const lb of world.loadBalancers.values()) lb.spec.droplet_ids = lb.spec.droplet_ids.filter((d) => d !== id);
}

/** Droplets in ID order, optionally only those carrying `tag`. */
export function listDroplets(world: World, tag?: string | null): Droplet[] {
  const all = [...world.droplets.values()].sort((a, b) => a.id - b.id);
  return tag ? all.filter((d) => d.tags.includes(tag)) : all;
}

/** The Droplet as the API answers it. */
export function dropletView(world: World, d: Droplet): object {
  const size = sizes.find((s) => s.slug === d.size) ?? sizes[0];
  return {
    id: d.id,
    name: d.name,
    memory: size?.memory ?? 1024,
    vcpus: size?.vcpus ?? 1,
    disk: size?.disk ?? 25,
    locked: false,
    status: d.status,
    kernel: null,
    created_at: world.iso(d.createdAt),
    features: ["private_networking", "ipv6"],
    backup_ids: [],
    next_backup_window: null,
    snapshot_ids: [],
    image: {
      id: 129211873,
      name: "24.04 (LTS) x64",
      distribution: "Ubuntu",
      slug: "ubuntu-24-04-x64",
      public: true,
      regions: regionSlugs,
      created_at: "2024-04-25T00:00:00Z",
      type: "base",
      min_disk_size: 7,
      size_gigabytes: 2.36,
      description: "Ubuntu 24.04 (LTS) x64",
      tags: [],
      status: "available",
      error_message: "",
    },
    volume_ids: [],
    size: sizeView(d.size),
    size_slug: d.size,
    networks: {
      v4: [
        { ip_address: d.privateV4, netmask: "255.255.0.0", gateway: "10.10.0.1", type: "private" },
        {
          ip_address: d.publicV4,
          netmask: "255.255.255.0",
          gateway: d.publicV4.replace(/\.\d+$/, ".1"),
          type: "public",
        },
      ],
      v6: [{ ip_address: d.publicV6, netmask: 64, gateway: "2001:db8:0:1::1", type: "public" }],
    },
    region: regionView(d.region),
    tags: [...d.tags],
    vpc_uuid: d.vpcUuid,
  };
}
