/**
 * Private networks: an IPv4 range from RFC 1918, subnets inside it per network zone, routes (at most
 * `MAX_ROUTES`, as Hetzner limits them), and the private addresses servers and load balancers get in it.
 */
import type { Action } from "../actions.ts";
import { HcloudError, invalidInput, limitExceeded, notUnique } from "../errors.ts";
import {
  type Cidr4,
  contains,
  formatCidr4,
  formatIPv4,
  overlaps,
  parseCidr4,
  parseIPv4,
  privateRanges,
  size,
  within,
} from "../ipv4.ts";
import type { Labels } from "../labels.ts";
import type { Network, Route, Subnet } from "./types.ts";
import type { World } from "./world.ts";

/** Hetzner's documented limit on routes per network. */
export const MAX_ROUTES = 100;

export interface SubnetSpec {
  type: Subnet["type"];
  ip_range?: string | undefined;
  network_zone: string;
  vswitch_id?: number | undefined;
}

export interface NetworkSpec {
  name: string;
  ip_range: string;
  labels?: Labels | undefined;
  subnets?: SubnetSpec[] | undefined;
  routes?: Route[] | undefined;
  expose_routes_to_vswitch?: boolean | undefined;
}

export function createNetwork(world: World, spec: NetworkSpec): Network {
  if ([...world.networks.values()].some((n) => n.name === spec.name)) throw notUnique("name", spec.name);
  const range = cidr(spec.ip_range, "ip_range");
  if (!privateRanges.some((p) => within(range, p)) || range.bits > 24) {
    throw invalidInput({ ip_range: [`${spec.ip_range} must be a private range (RFC 1918) of /24 or larger`] });
  }
  const network: Network = {
    id: world.nextId(),
    name: spec.name,
    ip_range: formatCidr4(range),
    subnets: [],
    routes: [],
    labels: spec.labels ?? {},
    protection: { delete: false },
    expose_routes_to_vswitch: spec.expose_routes_to_vswitch ?? false,
    created: world.createdAt(),
  };
  for (const [i, subnet] of (spec.subnets ?? []).entries()) addSubnetTo(network, subnet, `subnets[${i}].ip_range`);
  for (const [i, route] of (spec.routes ?? []).entries()) addRouteTo(network, route, `routes[${i}]`);
  world.networks.set(network.id, network);
  return network;
}

export function deleteNetwork(world: World, network: Network): void {
  if (network.protection.delete) throw new HcloudError("protected", `network ${network.id} is delete-protected`);
  world.actions.assertUnlocked({ id: network.id, type: "network" });
  for (const server of world.servers.values())
    server.private_net = server.private_net.filter((p) => p.network !== network.id);
  for (const lb of world.loadBalancers.values())
    lb.private_net = lb.private_net.filter((p) => p.network !== network.id);
  world.networks.delete(network.id);
}

export function addRoute(world: World, network: Network, route: Route): Action {
  const ref = { id: network.id, type: "network" as const };
  world.actions.assertUnlocked(ref);
  checkRoute(network, route, "");
  return world.act("add_route", [ref], () => addRouteTo(network, route, ""));
}

export function deleteRoute(world: World, network: Network, route: Route): Action {
  const ref = { id: network.id, type: "network" as const };
  world.actions.assertUnlocked(ref);
  const at = network.routes.findIndex((r) => r.destination === route.destination && r.gateway === route.gateway);
  if (at < 0)
    throw new HcloudError(
      "not_found",
      `network ${network.id} has no route to ${route.destination} via ${route.gateway}`,
    );
  return world.act("delete_route", [ref], () => network.routes.splice(at, 1));
}

export function addSubnet(world: World, network: Network, spec: SubnetSpec): Action {
  const ref = { id: network.id, type: "network" as const };
  world.actions.assertUnlocked(ref);
  const probe = structuredClone(network);
  addSubnetTo(probe, spec, "ip_range");
  return world.act("add_subnet", [ref], () => addSubnetTo(network, spec, "ip_range"));
}

export function deleteSubnet(world: World, network: Network, ipRange: string): Action {
  const ref = { id: network.id, type: "network" as const };
  world.actions.assertUnlocked(ref);
  const subnet = network.subnets.find((s) => s.ip_range === ipRange);
  if (!subnet) throw new HcloudError("not_found", `network ${network.id} has no subnet ${ipRange}`);
  const range = cidr(ipRange, "ip_range");
  const used = [...world.servers.values(), ...world.loadBalancers.values()].some((r) =>
    r.private_net.some((p) => p.network === network.id && contains(range, parseIPv4(p.ip ?? "") ?? -1)),
  );
  if (used) throw new HcloudError("conflict", `subnet ${ipRange} still has servers or load balancers attached`);
  return world.act("delete_subnet", [ref], () => network.subnets.splice(network.subnets.indexOf(subnet), 1));
}

/**
 * A private address for an attachment in `zone`: `wanted` if it is free inside a subnet of that zone, else the
 * first free host of the first such subnet. `no_subnet_available` when the network has no subnet there.
 */
export function allocatePrivateIp(world: World, network: Network, zone: string, wanted?: string): string {
  const subnets = network.subnets.filter((s) => s.network_zone === zone && s.type !== "vswitch");
  if (subnets.length === 0) {
    throw new HcloudError("no_subnet_available", `network ${network.id} has no subnet in network zone ${zone}`);
  }
  const taken = new Set(
    [...world.servers.values(), ...world.loadBalancers.values()].flatMap((r) =>
      r.private_net.filter((p) => p.network === network.id).flatMap((p) => p.ip ?? []),
    ),
  );
  const gateway = network.subnets[0]?.gateway;
  if (wanted !== undefined) {
    const n = parseIPv4(wanted);
    if (n === undefined) throw invalidInput({ ip: [`'${wanted}' is not an IPv4 address`] });
    const inside = subnets.some((s) => contains(parseCidr4(s.ip_range) as Cidr4, n));
    if (!inside || taken.has(wanted) || wanted === gateway) {
      throw new HcloudError("ip_not_available", `${wanted} is taken or outside the subnets of zone ${zone}`);
    }
    return wanted;
  }
  for (const subnet of subnets) {
    const range = parseCidr4(subnet.ip_range) as Cidr4;
    for (let n = range.base + 2; n < range.base + size(range) - 1; n++) {
      const ip = formatIPv4(n);
      if (!taken.has(ip) && ip !== gateway) return ip;
    }
  }
  throw new HcloudError("ip_not_available", `network ${network.id} has no free address in zone ${zone}`);
}

function addSubnetTo(network: Network, spec: SubnetSpec, field: string): void {
  const outer = parseCidr4(network.ip_range) as Cidr4;
  let range: Cidr4;
  if (spec.ip_range === undefined) {
    range = firstFree(network, outer, field);
  } else {
    range = cidr(spec.ip_range, field);
    if (!within(range, outer)) throw invalidInput({ [field]: [`${spec.ip_range} is not inside ${network.ip_range}`] });
    const clash = network.subnets.find((s) => overlaps(parseCidr4(s.ip_range) as Cidr4, range));
    if (clash) throw new HcloudError("networks_overlap", `${spec.ip_range} overlaps subnet ${clash.ip_range}`);
  }
  if (spec.type === "vswitch" && spec.vswitch_id === undefined) {
    throw invalidInput({ vswitch_id: ["is required for a subnet of type vswitch"] });
  }
  network.subnets.push({
    type: spec.type,
    ip_range: formatCidr4(range),
    network_zone: spec.network_zone,
    gateway: formatIPv4(outer.base + 1),
    ...(spec.vswitch_id !== undefined && { vswitch_id: spec.vswitch_id }),
  });
}

/** The first /24 of the network that no subnet overlaps. */
function firstFree(network: Network, outer: Cidr4, field: string): Cidr4 {
  const bits = Math.max(outer.bits, 24);
  for (let base = outer.base; base < outer.base + size(outer); base += 2 ** (32 - bits)) {
    const candidate = { base, bits };
    if (!network.subnets.some((s) => overlaps(parseCidr4(s.ip_range) as Cidr4, candidate))) return candidate;
  }
  throw invalidInput({ [field]: [`no free /${bits} left in ${network.ip_range}; give one`] });
}

function checkRoute(network: Network, route: Route, field: string): void {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const destination = cidr(route.destination, at("destination"));
  const gateway = parseIPv4(route.gateway);
  const outer = parseCidr4(network.ip_range) as Cidr4;
  if (gateway === undefined || !contains(outer, gateway)) {
    throw invalidInput({ [at("gateway")]: [`${route.gateway} must be an address inside ${network.ip_range}`] });
  }
  if (gateway === outer.base + 1) {
    throw invalidInput({ [at("gateway")]: [`${route.gateway} is the network's own gateway`] });
  }
  if (network.routes.some((r) => r.destination === formatCidr4(destination))) {
    throw invalidInput({ [at("destination")]: [`a route to ${route.destination} already exists; delete it first`] });
  }
  if (network.routes.length >= MAX_ROUTES) {
    throw limitExceeded("routes", `network ${network.id} already has ${MAX_ROUTES} routes, the most it may have`);
  }
}

function addRouteTo(network: Network, route: Route, field: string): void {
  checkRoute(network, route, field);
  network.routes.push({ destination: formatCidr4(parseCidr4(route.destination) as Cidr4), gateway: route.gateway });
}

function cidr(text: string, field: string): Cidr4 {
  const parsed = parseCidr4(text);
  if (!parsed) throw invalidInput({ [field]: [`'${text}' is not an IPv4 CIDR without host bits (e.g. 10.0.0.0/16)`] });
  return parsed;
}
