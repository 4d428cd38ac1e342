/**
 * The fixed catalogue: locations, datacenters, server types and load-balancer types, in the shapes the API sends
 * (prices left out: no client of ours reads them). Names follow Hetzner's; IDs are the emulator's own.
 */

export interface Location {
  id: number;
  name: string;
  description: string;
  country: string;
  city: string;
  latitude: number;
  longitude: number;
  network_zone: string;
}

export interface Datacenter {
  id: number;
  name: string;
  description: string;
  location: Location;
  server_types: { supported: number[]; available: number[]; available_for_migration: number[] };
}

export interface ServerType {
  id: number;
  name: string;
  description: string;
  cores: number;
  memory: number;
  disk: number;
  deprecated: boolean;
  storage_type: "local" | "network";
  cpu_type: "shared" | "dedicated";
  architecture: "x86" | "arm";
}

export interface LoadBalancerType {
  id: number;
  name: string;
  description: string;
  max_connections: number;
  max_services: number;
  max_targets: number;
  max_assigned_certificates: number;
  /** Legacy: when the deprecation was announced (ISO-8601), or null; the API keeps it beside `deprecation`. */
  deprecated: string | null;
  /** Set while the type is being phased out: new load balancers of it can be ordered until `unavailable_after`. */
  deprecation: Deprecation | null;
}

/** The API's deprecation object (load balancer, server types, images): two ISO-8601 times. */
export interface Deprecation {
  announced: string;
  unavailable_after: string;
}

const loc = (
  id: number,
  name: string,
  city: string,
  country: string,
  zone: string,
  lat: number,
  lon: number,
): Location => ({
  id,
  name,
  description: `${city} DC Park 1`,
  country,
  city,
  latitude: lat,
  longitude: lon,
  network_zone: zone,
});

export const locations: readonly Location[] = [
  loc(1, "fsn1", "Falkenstein", "DE", "eu-central", 50.47612, 12.370071),
  loc(2, "nbg1", "Nuremberg", "DE", "eu-central", 49.452102, 11.076665),
  loc(3, "hel1", "Helsinki", "FI", "eu-central", 60.169855, 24.938379),
  loc(4, "ash", "Ashburn, VA", "US", "us-east", 39.045821, -77.487073),
  loc(5, "hil", "Hillsboro, OR", "US", "us-west", 45.54222, -122.951924),
  loc(6, "sin", "Singapore", "SG", "ap-southeast", 1.283333, 103.833333),
];

const st = (
  id: number,
  name: string,
  cores: number,
  memory: number,
  disk: number,
  cpu: ServerType["cpu_type"],
  arch: ServerType["architecture"],
): ServerType => ({
  id,
  name,
  description: name.toUpperCase(),
  cores,
  memory,
  disk,
  deprecated: false,
  storage_type: "local",
  cpu_type: cpu,
  architecture: arch,
});

export const serverTypes: readonly ServerType[] = [
  st(1, "cx22", 2, 4, 40, "shared", "x86"),
  st(2, "cx32", 4, 8, 80, "shared", "x86"),
  st(3, "cpx21", 3, 4, 80, "shared", "x86"),
  st(4, "cax11", 2, 4, 40, "shared", "arm"),
  st(5, "ccx13", 2, 8, 80, "dedicated", "x86"),
];

/** The legacy datacenter of each location (hccm's zone label reads its name). */
const DC_NUMBER: Readonly<Record<string, number>> = { fsn1: 14, nbg1: 3, hel1: 2, ash: 1, hil: 1, sin: 1 };

export const datacenters: readonly Datacenter[] = locations.map((location) => {
  const ids = serverTypes.map((t) => t.id);
  return {
    id: location.id,
    name: `${location.name}-dc${DC_NUMBER[location.name] ?? 1}`,
    description: `${location.city} ${DC_NUMBER[location.name] ?? 1} virtual DC`,
    location,
    server_types: { supported: ids, available: ids, available_for_migration: ids },
  };
});

const lbt = (id: number, name: string, services: number, targets: number, certs: number, conns: number) => ({
  id,
  name,
  description: name.toUpperCase(),
  max_connections: conns,
  max_services: services,
  max_targets: targets,
  max_assigned_certificates: certs,
  deprecated: null,
  deprecation: null,
});

export const loadBalancerTypes: readonly LoadBalancerType[] = [
  lbt(1, "lb11", 5, 25, 10, 10_000),
  lbt(2, "lb21", 15, 75, 25, 20_000),
  lbt(3, "lb31", 30, 150, 50, 40_000),
];

/** A catalogue entry by ID (a number or its digits) or name. */
export function findByIdOrName<T extends { id: number; name: string }>(
  all: readonly T[],
  key: string | number,
): T | undefined {
  return all.find((x) => x.id === Number(key) || x.name === String(key));
}
