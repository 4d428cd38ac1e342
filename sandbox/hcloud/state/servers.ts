/**
 * Servers: created through the API (or in process) with a type, a location, public addresses and networks; their
 * status moves through `initializing`/`starting`/`stopping` to where the action that moved them ends. The view
 * is the API's server object, with the deprecated `datacenter` only when the world serves it.
 */
import type { Action } from "../actions.ts";
import { HcloudError, invalidInput, notUnique } from "../errors.ts";
import type { Labels } from "../labels.ts";
import { datacenters, findByIdOrName, locations, serverTypes } from "./catalog.ts";
import { allocatePrivateIp } from "./networks.ts";
import type { Server, ServerStatus } from "./types.ts";
import type { World } from "./world.ts";

export interface ServerSpec {
  name: string;
  server_type: string | number;
  /** A location's name or ID; default fsn1. */
  location?: string | number | undefined;
  /** The legacy way to place a server; its location is taken. */
  datacenter?: string | number | undefined;
  image?: string | number | undefined;
  labels?: Labels | undefined;
  networks?: number[] | undefined;
  public_net?: { enable_ipv4?: boolean | undefined; enable_ipv6?: boolean | undefined } | undefined;
  start_after_create?: boolean | undefined;
}

export function createServer(world: World, spec: ServerSpec): { server: Server; action: Action } {
  const problems: Record<string, string[]> = {};
  const type = findByIdOrName(serverTypes, spec.server_type);
  if (!type) problems.server_type = [`unknown server type '${spec.server_type}'; one of ${names(serverTypes)}`];
  const dc = spec.datacenter === undefined ? undefined : findByIdOrName(datacenters, spec.datacenter);
  if (spec.datacenter !== undefined && !dc) problems.datacenter = [`unknown datacenter '${spec.datacenter}'`];
  const location = dc?.location ?? findByIdOrName(locations, spec.location ?? "fsn1");
  if (!location) problems.location = [`unknown location '${spec.location}'; one of ${names(locations)}`];
  const networks = (spec.networks ?? []).map((id) => world.networks.get(id));
  if (networks.some((n) => !n)) problems.networks = ["names a network that does not exist"];
  if (Object.keys(problems).length > 0 || !type || !location) throw invalidInput(problems);
  if ([...world.servers.values()].some((s) => s.name === spec.name)) throw notUnique("name", spec.name);
  const address = world.nextPublicAddress();
  const id = world.nextId();
  const start = spec.start_after_create ?? true;
  const server: Server = {
    id,
    name: spec.name,
    status: "initializing",
    settle: null,
    created: world.createdAt(),
    labels: spec.labels ?? {},
    server_type: type,
    location,
    public_net: {
      ipv4:
        spec.public_net?.enable_ipv4 === false
          ? null
          : {
              id: world.nextId(),
              ip: address.ipv4,
              blocked: false,
              dns_ptr: `static.${address.ipv4}.clients.your-server.de`,
            },
      ipv6:
        spec.public_net?.enable_ipv6 === false
          ? null
          : { id: world.nextId(), ip: address.ipv6Net, blocked: false, dns_ptr: [] },
      floating_ips: [],
      firewalls: [],
    },
    private_net: [],
    protection: { delete: false, rebuild: false },
    image: spec.image === undefined ? null : { id: 1, name: String(spec.image), type: "system" },
  };
  for (const network of networks) {
    if (!network) continue;
    const ip = allocatePrivateIp(world, network, location.network_zone);
    server.private_net.push({ network: network.id, ip, alias_ips: [], mac_address: mac(world) });
  }
  world.servers.set(id, server);
  const action = world.act("create_server", [{ id, type: "server" }], () => {});
  server.settle = { status: start ? "running" : "off", atMs: Date.parse(action.started) + world.actions.durationMs };
  if (action.status !== "running") settle(world, server);
  return { server, action };
}

/** Applies a finished transition; call before reading or changing a server. */
export function settle(world: World, server: Server): Server {
  if (server.settle && world.now() >= server.settle.atMs) {
    server.status = server.settle.status;
    server.settle = null;
  }
  return server;
}

/** `poweron`, `poweroff`, `shutdown` and `reboot`: the status passes through a transient one while the action runs. */
export function power(world: World, server: Server, command: "poweron" | "poweroff" | "shutdown" | "reboot"): Action {
  settle(world, server);
  const [during, after]: [ServerStatus, ServerStatus] =
    command === "poweron" || command === "reboot" ? ["starting", "running"] : ["stopping", "off"];
  return world.act(command, [{ id: server.id, type: "server" }], () => {
    server.status = world.actions.durationMs > 0 ? during : after;
    server.settle =
      world.actions.durationMs > 0 ? { status: after, atMs: world.now() + world.actions.durationMs } : null;
  });
}

export function attachServer(
  world: World,
  server: Server,
  networkId: number,
  ip?: string,
  aliasIps?: string[],
): Action {
  const network = world.network(networkId);
  const refs = [
    { id: server.id, type: "server" as const },
    { id: network.id, type: "network" as const },
  ];
  world.actions.assertUnlocked(...refs);
  if (server.private_net.some((p) => p.network === network.id)) {
    throw new HcloudError("conflict", `server ${server.id} is already attached to network ${network.id}`);
  }
  const address = allocatePrivateIp(world, network, server.location.network_zone, ip);
  return world.act("attach_to_network", refs, () => {
    server.private_net.push({ network: network.id, ip: address, alias_ips: aliasIps ?? [], mac_address: mac(world) });
  });
}

export function detachServer(world: World, server: Server, networkId: number): Action {
  const network = world.network(networkId);
  const refs = [
    { id: server.id, type: "server" as const },
    { id: network.id, type: "network" as const },
  ];
  world.actions.assertUnlocked(...refs);
  if (!server.private_net.some((p) => p.network === network.id)) {
    throw new HcloudError(
      "server_not_attached_to_network",
      `server ${server.id} is not attached to network ${network.id}`,
    );
  }
  return world.act("detach_from_network", refs, () => {
    server.private_net = server.private_net.filter((p) => p.network !== network.id);
  });
}

export function updateServer(
  world: World,
  server: Server,
  change: { name?: string | undefined; labels?: Labels | undefined },
): void {
  if (
    change.name !== undefined &&
    [...world.servers.values()].some((s) => s.name === change.name && s.id !== server.id)
  ) {
    throw notUnique("name", change.name);
  }
  if (change.name !== undefined) server.name = change.name;
  if (change.labels !== undefined) server.labels = change.labels;
}

/** Deletes at once (the action records it); a load balancer's target on it goes too, as the API does. */
export function deleteServer(world: World, server: Server): Action {
  if (server.protection.delete) throw new HcloudError("protected", `server ${server.id} is delete-protected`);
  return world.act("delete_server", [{ id: server.id, type: "server" }], () => {
    world.servers.delete(server.id);
    for (const lb of world.loadBalancers.values()) {
      lb.targets = lb.targets.filter((t) => t.type !== "server" || t.server.id !== server.id);
    }
  });
}

export function serverView(world: World, server: Server): Record<string, unknown> {
  const s = settle(world, server);
  const { settle: _, location, ...fields } = s;
  const dc = datacenters.find((d) => d.location.id === location.id);
  const running = world.actions.of({ id: s.id, type: "server" }).some((a) => a.status === "running");
  return {
    ...structuredClone(fields),
    location,
    ...(world.legacyDatacenter && dc && { datacenter: dc }),
    load_balancers: [...world.loadBalancers.values()]
      .filter((lb) => lb.targets.some((t) => t.type === "server" && t.server.id === s.id))
      .map((lb) => lb.id),
    volumes: [],
    iso: null,
    placement_group: null,
    rescue_enabled: false,
    locked: running,
    backup_window: null,
    outgoing_traffic: 0,
    ingoing_traffic: 0,
    included_traffic: 21990232555520,
    primary_disk_size: s.server_type.disk,
  };
}

function mac(world: World): string {
  const byte = () =>
    Math.floor(world.random() * 256)
      .toString(16)
      .padStart(2, "0");
  return `86:00:00:${byte()}:${byte()}:${byte()}`;
}

const names = (all: readonly { name: string }[]) => all.map((x) => x.name).join(", ");
