/**
 * The emulated OpenStack project: Keystone's users, projects, application credentials, trusts and issued tokens;
 * Nova's servers and flavors; Neutron's networks and ports. Routes read and change it; tests arrange it in process
 * with `createServer` and the other helpers.
 */
import type { Random } from "../cloud/random.ts";
import { OctaviaWorld } from "./octavia-state.ts";

export interface User {
  readonly id: string;
  readonly name: string;
  readonly domainID: string;
  password: string;
}

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly domainID: string;
}

export interface AppCredential {
  readonly id: string;
  readonly name: string;
  readonly userID: string;
  readonly projectID: string;
  readonly secret: string;
}

export interface Trust {
  readonly id: string;
  readonly trusteeUserID: string;
  readonly projectID: string;
}

export interface IssuedToken {
  readonly userID: string;
  readonly projectID: string;
  readonly methods: readonly string[];
  readonly issuedAt: number;
  expiresAt: number;
}

export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
}

export interface Network {
  readonly id: string;
  /** The one subnet its addresses come from, its name (`<network>-subnet`) and Neutron tags. */
  readonly subnetID: string;
  readonly subnetName: string;
  readonly subnetTags: readonly string[];
  readonly name: string;
  readonly external: boolean;
  /** The next host number handed out on it. */
  next: number;
  readonly prefix: string;
}

export interface Port {
  readonly id: string;
  readonly networkID: string;
  deviceID: string;
  status: "ACTIVE" | "DOWN" | "BUILD";
  readonly macAddress: string;
  readonly fixedIPs: string[];
  /** A trunk's parent port: the IDs of its sub-ports (`trunk_details.sub_ports`), VLANs from 100 up. */
  readonly subPorts?: string[];
}

export interface Server {
  readonly id: string;
  name: string;
  /** `ACTIVE`, `SHUTOFF`, `ERROR`, `BUILD`, … */
  status: string;
  readonly flavorID: string;
  readonly availabilityZone: string;
  readonly created: number;
  accessIPv4: string;
  accessIPv6: string;
  readonly metadata: Record<string, string>;
  /** Floating IPs by the network of the port they point at. */
  readonly floating: { network: string; addr: string }[];
}

export const DEFAULT_DOMAIN = "default";

export class World {
  readonly users = new Map<string, User>();
  readonly projects = new Map<string, Project>();
  readonly appCredentials = new Map<string, AppCredential>();
  readonly trusts = new Map<string, Trust>();
  readonly tokens = new Map<string, IssuedToken>();
  readonly flavors = new Map<string, Flavor>();
  readonly networks = new Map<string, Network>();
  readonly ports = new Map<string, Port>();
  readonly servers = new Map<string, Server>();
  /** Octavia's load balancers and Neutron's floating IPs. */
  readonly octavia = new OctaviaWorld();
  /** How long a token lives, in ms (Keystone's default `[token] expiration` is one hour). */
  tokenLifetimeMs = 3_600_000;
  readonly #random: Random;
  readonly now: () => number;

  constructor(random: Random, now: () => number) {
    this.#random = random;
    this.now = now;
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.#random() * 16).toString(16)).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }

  /** A token value: opaque, long, like Fernet's. */
  tokenValue(): string {
    return `gAAAAA${Array.from({ length: 40 }, () => Math.floor(this.#random() * 36).toString(36)).join("")}`;
  }

  mac(): string {
    const byte = () =>
      Math.floor(this.#random() * 256)
        .toString(16)
        .padStart(2, "0");
    return `fa:16:3e:${byte()}:${byte()}:${byte()}`;
  }

  /** The live token of `value`, or `undefined` when unknown, revoked or expired. */
  liveToken(value: string | null): IssuedToken | undefined {
    if (!value) return undefined;
    const token = this.tokens.get(value);
    return token && token.expiresAt > this.now() ? token : undefined;
  }
}

export function addUser(world: World, spec: { name: string; password: string; domainID?: string }): User {
  const user = { id: world.uuid().replaceAll("-", ""), domainID: DEFAULT_DOMAIN, ...spec };
  world.users.set(user.id, user);
  return user;
}

export function addProject(world: World, spec: { name: string; domainID?: string }): Project {
  const project = { id: world.uuid().replaceAll("-", ""), domainID: DEFAULT_DOMAIN, ...spec };
  world.projects.set(project.id, project);
  return project;
}

export function addAppCredential(
  world: World,
  spec: { name: string; userID: string; projectID: string; secret: string },
): AppCredential {
  const credential = { id: world.uuid().replaceAll("-", ""), ...spec };
  world.appCredentials.set(credential.id, credential);
  return credential;
}

export function addFlavor(world: World, spec: { name: string; vcpus?: number; ram?: number; disk?: number }): Flavor {
  const flavor = { id: world.uuid(), vcpus: 2, ram: 4096, disk: 40, ...spec };
  world.flavors.set(flavor.id, flavor);
  return flavor;
}

/** A network whose addresses are `<prefix><n>`: `10.0.0.` or `fd00::`. */
export function addNetwork(
  world: World,
  spec: { name: string; prefix: string; external?: boolean; subnetName?: string; subnetTags?: readonly string[] },
): Network {
  const network = {
    id: world.uuid(),
    subnetID: world.uuid(),
    external: false,
    next: 10,
    subnetName: `${spec.name}-subnet`,
    subnetTags: [],
    ...spec,
  };
  world.networks.set(network.id, network);
  return network;
}

export function networkNamed(world: World, name: string): Network {
  const network = [...world.networks.values()].find((n) => n.name === name);
  if (!network) throw new Error(`the emulated project has no network named "${name}"`);
  return network;
}

export function nextAddress(network: Network): string {
  return `${network.prefix}${network.next++}`;
}

export interface ServerSpec {
  readonly name: string;
  readonly status?: string;
  /** A flavor's name; default the first flavor. */
  readonly flavor?: string;
  readonly availabilityZone?: string;
  /** Networks to attach a port on, by name; default `private`. */
  readonly networks?: readonly string[];
  /** A floating IP from `public` for the port on the first network. */
  readonly floatingIP?: boolean;
  readonly accessIPv4?: string;
  readonly accessIPv6?: string;
  readonly metadata?: Record<string, string>;
  /** The ports' status; default `ACTIVE`. */
  readonly portStatus?: Port["status"];
}

export function createServer(world: World, spec: ServerSpec): Server {
  const flavor = spec.flavor
    ? [...world.flavors.values()].find((f) => f.name === spec.flavor)
    : [...world.flavors.values()][0];
  if (!flavor) throw new Error(`the emulated project has no flavor ${spec.flavor ?? "at all"}`);
  const server: Server = {
    id: world.uuid(),
    name: spec.name,
    status: spec.status ?? "ACTIVE",
    flavorID: flavor.id,
    availabilityZone: spec.availabilityZone ?? "nova",
    created: world.now(),
    accessIPv4: spec.accessIPv4 ?? "",
    accessIPv6: spec.accessIPv6 ?? "",
    metadata: { ...spec.metadata },
    floating: [],
  };
  for (const name of spec.networks ?? ["private"]) {
    const network = networkNamed(world, name);
    const port: Port = {
      id: world.uuid(),
      networkID: network.id,
      deviceID: server.id,
      status: spec.portStatus ?? "ACTIVE",
      macAddress: world.mac(),
      fixedIPs: [nextAddress(network)],
    };
    world.ports.set(port.id, port);
  }
  if (spec.floatingIP) {
    const first = spec.networks?.[0] ?? "private";
    server.floating.push({ network: first, addr: nextAddress(networkNamed(world, "public")) });
  }
  world.servers.set(server.id, server);
  return server;
}

/**
 * Makes the server's first port a trunk with one sub-port on each of `networks`, as Neutron's trunk extension
 * does; a sub-port's `device_id` is the trunk's, not the server's. Returns the sub-ports.
 */
export function addTrunk(world: World, serverID: string, networks: readonly string[]): Port[] {
  const parent = [...world.ports.values()].find((p) => p.deviceID === serverID);
  if (!parent) throw new Error(`server ${serverID} has no port to make a trunk of`);
  const subs = networks.map((name) => {
    const network = networkNamed(world, name);
    const port: Port = {
      id: world.uuid(),
      networkID: network.id,
      deviceID: `trunk-${parent.id}`,
      status: "ACTIVE",
      macAddress: parent.macAddress,
      fixedIPs: [nextAddress(network)],
    };
    world.ports.set(port.id, port);
    return port;
  });
  world.ports.set(parent.id, { ...parent, subPorts: [...(parent.subPorts ?? []), ...subs.map((p) => p.id)] });
  return subs;
}

/** Deletes a server and its ports, as Nova does with the ports it made. */
export function deleteServer(world: World, id: string): boolean {
  for (const [portID, port] of world.ports) if (port.deviceID === id) world.ports.delete(portID);
  return world.servers.delete(id);
}

/** A project with one user, a flavor and the `private` and `public` networks: what a fresh emulator holds. */
export function seedProject(world: World, credentials: { username: string; password: string; project: string }) {
  const user = addUser(world, { name: credentials.username, password: credentials.password });
  const project = addProject(world, { name: credentials.project });
  addFlavor(world, { name: "m1.small", vcpus: 1, ram: 2048, disk: 20 });
  addFlavor(world, { name: "m1.large", vcpus: 4, ram: 8192, disk: 80 });
  addNetwork(world, { name: "private", prefix: "10.0.0." });
  addNetwork(world, { name: "public", prefix: "203.0.113.", external: true });
  addNetwork(world, { name: "private-v6", prefix: "fd00::" });
  return { user, project };
}
