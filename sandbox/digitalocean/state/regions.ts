/** The regions and Droplet sizes the emulator knows, each with the fields the API's `region` and `size` carry. */

export interface Region {
  readonly slug: string;
  readonly name: string;
}

export const regions: readonly Region[] = [
  { slug: "nyc1", name: "New York 1" },
  { slug: "nyc3", name: "New York 3" },
  { slug: "sfo3", name: "San Francisco 3" },
  { slug: "ams3", name: "Amsterdam 3" },
  { slug: "fra1", name: "Frankfurt 1" },
  { slug: "lon1", name: "London 1" },
  { slug: "sgp1", name: "Singapore 1" },
];

export interface Size {
  readonly slug: string;
  readonly memory: number;
  readonly vcpus: number;
  readonly disk: number;
  readonly transfer: number;
  readonly price_monthly: number;
  readonly price_hourly: number;
}

export const sizes: readonly Size[] = [
  { slug: "s-1vcpu-1gb", memory: 1024, vcpus: 1, disk: 25, transfer: 1, price_monthly: 6, price_hourly: 0.00893 },
  { slug: "s-2vcpu-2gb", memory: 2048, vcpus: 2, disk: 60, transfer: 3, price_monthly: 18, price_hourly: 0.02679 },
  { slug: "s-2vcpu-4gb", memory: 4096, vcpus: 2, disk: 80, transfer: 4, price_monthly: 24, price_hourly: 0.03571 },
  { slug: "s-4vcpu-8gb", memory: 8192, vcpus: 4, disk: 160, transfer: 5, price_monthly: 48, price_hourly: 0.07143 },
];

export const regionSlugs = regions.map((r) => r.slug) as [string, ...string[]];
export const sizeSlugs = sizes.map((s) => s.slug) as [string, ...string[]];

/** The `region` object of an answer. */
export function regionView(slug: string): object {
  const region = regions.find((r) => r.slug === slug) ?? { slug, name: slug };
  return {
    slug: region.slug,
    name: region.name,
    sizes: sizes.map((s) => s.slug),
    features: ["backups", "ipv6", "metadata", "install_agent", "storage", "image_transfer"],
    available: true,
  };
}

/** The `size` object of a Droplet. */
export function sizeView(slug: string): object {
  const size = sizes.find((s) => s.slug === slug) ?? sizes[0];
  return {
    ...size,
    slug,
    regions: regions.map((r) => r.slug),
    available: true,
    description: "Basic",
  };
}
