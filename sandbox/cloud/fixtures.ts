/** Machines with predictable names, zones and types, for the sandbox command, tests and benchmarks. */
import type { CloudState } from "./state.ts";
import type { Machine, MachineSpec, MachineState } from "./types.ts";

export interface MachineFixtureOptions {
  /** Names are `<prefix>-<n>`; default `node`. */
  readonly prefix?: string;
  /** The first `n`; default 1. */
  readonly start?: number;
  /** Assigned round robin; default zone-a, zone-b, zone-c. */
  readonly zones?: readonly string[];
  /** Default sandbox-1. */
  readonly region?: string;
  /** Assigned round robin; default sb-small, sb-medium, sb-large. */
  readonly instanceTypes?: readonly string[];
  /** Default running. */
  readonly state?: MachineState;
}

export const fixtureDefaults = {
  prefix: "node",
  zones: ["zone-a", "zone-b", "zone-c"],
  region: "sandbox-1",
  instanceTypes: ["sb-small", "sb-medium", "sb-large"],
} as const;

/** The spec of the `i`-th fixture machine (0-based), e.g. i=0 → node-1 in zone-a, sb-small. */
export function machineFixture(i: number, options: MachineFixtureOptions = {}): MachineSpec {
  const zones = options.zones ?? fixtureDefaults.zones;
  const types = options.instanceTypes ?? fixtureDefaults.instanceTypes;
  return {
    name: `${options.prefix ?? fixtureDefaults.prefix}-${(options.start ?? 1) + i}`,
    zone: zones[i % zones.length] ?? fixtureDefaults.zones[0],
    region: options.region ?? fixtureDefaults.region,
    instanceType: types[i % types.length] ?? fixtureDefaults.instanceTypes[0],
    state: options.state ?? "running",
  };
}

/** Create `count` machines (`node-1` … `node-<count>` by default). Throws on a name that is already taken. */
export function createMachines(state: CloudState, count: number, options: MachineFixtureOptions = {}): Machine[] {
  return Array.from({ length: count }, (_, i) => state.createMachine(machineFixture(i, options)));
}
