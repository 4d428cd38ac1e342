/**
 * Load balancers: create (names unique per project, exactly one of location or network zone), update, delete,
 * and the actions on them. Every change goes through `World.act`, so a running action locks the load balancer.
 */
import type { Action, ResourceRef } from "../actions.ts";
import { HcloudError, invalidInput, notUnique } from "../errors.ts";
import { type Labels, parseLabelSelector } from "../labels.ts";
import { findByIdOrName, loadBalancerTypes, locations } from "./catalog.ts";
import {
  newService,
  newTarget,
  type ServiceSpec,
  type TargetSpec,
  targetIndex,
  updatedService,
} from "./lb-services.ts";
import { allocatePrivateIp } from "./networks.ts";
import { settle } from "./servers.ts";
import type { LBTarget, LoadBalancer } from "./types.ts";
import type { World } from "./world.ts";

export interface LoadBalancerSpec {
  name: string;
  load_balancer_type: string | number;
  algorithm?: { type: LoadBalancer["algorithm"]["type"] } | undefined;
  location?: string | number | undefined;
  network_zone?: string | undefined;
  labels?: Labels | undefined;
  services?: ServiceSpec[] | undefined;
  targets?: TargetSpec[] | undefined;
  public_interface?: boolean | undefined;
  network?: number | undefined;
}

export function createLoadBalancer(
  world: World,
  spec: LoadBalancerSpec,
): { loadBalancer: LoadBalancer; action: Action } {
  const problems: Record<string, string[]> = {};
  const type = findByIdOrName(loadBalancerTypes, spec.load_balancer_type);
  if (!type)
    problems.load_balancer_type = [`unknown load balancer type '${spec.load_balancer_type}'; one of lb11, lb21, lb31`];
  if ((spec.location === undefined) === (spec.network_zone === undefined)) {
    problems.location = ["give exactly one of location and network_zone"];
  }
  const location =
    spec.location !== undefined
      ? findByIdOrName(locations, spec.location)
      : locations.find((l) => l.network_zone === spec.network_zone);
  if (!location && spec.location !== undefined) problems.location = [`unknown location '${spec.location}'`];
  if (!location && spec.network_zone !== undefined)
    problems.network_zone = [`unknown network zone '${spec.network_zone}'`];
  if (Object.keys(problems).length > 0 || !type || !location) throw invalidInput(problems);
  if ([...world.loadBalancers.values()].some((lb) => lb.name === spec.name)) throw notUnique("name", spec.name);
  const address = world.nextPublicAddress();
  const lb: LoadBalancer = {
    id: world.nextId(),
    name: spec.name,
    labels: spec.labels ?? {},
    created: world.createdAt(),
    location,
    load_balancer_type: type,
    algorithm: spec.algorithm ?? { type: "round_robin" },
    protection: { delete: false },
    public_net: {
      enabled: spec.public_interface ?? true,
      ipv4: { ip: address.ipv4, dns_ptr: `static.${address.ipv4}.clients.your-server.de` },
      ipv6: { ip: address.ipv6Host, dns_ptr: `static.${address.ipv4}.clients.your-server.de` },
    },
    private_net: [],
    services: [],
    targets: [],
  };
  // Checked on the new load balancer before it exists, so a bad service or target creates nothing.
  if (spec.network !== undefined) {
    const network = world.network(spec.network);
    lb.private_net.push({ network: network.id, ip: allocatePrivateIp(world, network, location.network_zone) });
  }
  for (const service of spec.services ?? []) lb.services.push(newService(world, lb, service));
  for (const target of spec.targets ?? []) lb.targets.push(newTarget(world, lb, target));
  checkPublicInterface(lb, lb.public_net.enabled);
  world.loadBalancers.set(lb.id, lb);
  const action = world.act("create_load_balancer", [ref(lb)], () => {});
  return { loadBalancer: lb, action };
}

export function updateLoadBalancer(
  world: World,
  lb: LoadBalancer,
  change: { name?: string | undefined; labels?: Labels | undefined },
): void {
  if (
    change.name !== undefined &&
    [...world.loadBalancers.values()].some((x) => x.name === change.name && x.id !== lb.id)
  ) {
    throw notUnique("name", change.name);
  }
  world.actions.assertUnlocked(ref(lb));
  if (change.name !== undefined) lb.name = change.name;
  if (change.labels !== undefined) lb.labels = change.labels;
}

export function deleteLoadBalancer(world: World, lb: LoadBalancer): void {
  if (lb.protection.delete) throw new HcloudError("protected", `load balancer ${lb.id} is delete-protected`);
  world.actions.assertUnlocked(ref(lb));
  world.loadBalancers.delete(lb.id);
}

/** The actions `POST /load_balancers/{id}/actions/<command>` runs, each with its checked body. */
export const loadBalancerActions = {
  add_service: (world: World, lb: LoadBalancer, body: ServiceSpec) => {
    world.actions.assertUnlocked(ref(lb));
    const service = newService(world, lb, body);
    return world.act("add_service", [ref(lb)], () => lb.services.push(service));
  },
  update_service: (world: World, lb: LoadBalancer, body: ServiceSpec & { listen_port: number }) => {
    world.actions.assertUnlocked(ref(lb));
    const service = updatedService(world, lb, body.listen_port, body);
    return world.act("update_service", [ref(lb)], () => {
      lb.services = lb.services.map((s) => (s.listen_port === body.listen_port ? service : s));
    });
  },
  delete_service: (world: World, lb: LoadBalancer, body: { listen_port: number }) => {
    world.actions.assertUnlocked(ref(lb));
    if (!lb.services.some((s) => s.listen_port === body.listen_port)) {
      throw new HcloudError("not_found", `load balancer ${lb.id} has no service on listen port ${body.listen_port}`);
    }
    return world.act("delete_service", [ref(lb)], () => {
      lb.services = lb.services.filter((s) => s.listen_port !== body.listen_port);
    });
  },
  add_target: (world: World, lb: LoadBalancer, body: TargetSpec) => {
    world.actions.assertUnlocked(ref(lb));
    const target = newTarget(world, lb, body);
    return world.act("add_target", [ref(lb)], () => lb.targets.push(target));
  },
  remove_target: (world: World, lb: LoadBalancer, body: TargetSpec) => {
    world.actions.assertUnlocked(ref(lb));
    const at = targetIndex(lb, body);
    return world.act("remove_target", [ref(lb)], () => lb.targets.splice(at, 1));
  },
  attach_to_network: (
    world: World,
    lb: LoadBalancer,
    body: { network: number; ip?: string | undefined; ip_range?: string | undefined },
  ) => {
    const network = world.network(body.network);
    const refs = [ref(lb), { id: network.id, type: "network" as const }];
    world.actions.assertUnlocked(...refs);
    if (lb.private_net.some((p) => p.network === network.id)) {
      throw new HcloudError(
        "load_balancer_already_attached",
        `load balancer ${lb.id} is already attached to network ${network.id}`,
      );
    }
    // `ip_range` picks the subnet the address comes from; it must be one of the network's subnets.
    const subnets = network.subnets.filter((s) => body.ip_range === undefined || s.ip_range === body.ip_range);
    if (subnets.length === 0) {
      throw invalidInput({ ip_range: [`${body.ip_range} is not a subnet of network ${network.id}`] });
    }
    const ip = allocatePrivateIp(world, { ...network, subnets }, lb.location.network_zone, body.ip);
    return world.act("attach_to_network", refs, () => lb.private_net.push({ network: network.id, ip }));
  },
  detach_from_network: (world: World, lb: LoadBalancer, body: { network: number }) => {
    const network = world.network(body.network);
    const refs = [ref(lb), { id: network.id, type: "network" as const }];
    world.actions.assertUnlocked(...refs);
    if (!lb.private_net.some((p) => p.network === network.id)) {
      throw new HcloudError(
        "load_balancer_not_attached_to_network",
        `load balancer ${lb.id} is not attached to network ${network.id}`,
      );
    }
    if (!lb.public_net.enabled && lb.private_net.length === 1) {
      throw new HcloudError("conflict", `load balancer ${lb.id} would have neither a public interface nor a network`);
    }
    return world.act("detach_from_network", refs, () => {
      lb.private_net = lb.private_net.filter((p) => p.network !== network.id);
    });
  },
  change_algorithm: (world: World, lb: LoadBalancer, body: { type: LoadBalancer["algorithm"]["type"] }) =>
    world.act("change_algorithm", [ref(lb)], () => {
      lb.algorithm = { type: body.type };
    }),
  change_type: (world: World, lb: LoadBalancer, body: { load_balancer_type: string | number }) => {
    const type = findByIdOrName(loadBalancerTypes, body.load_balancer_type);
    if (!type) throw invalidInput({ load_balancer_type: [`unknown load balancer type '${body.load_balancer_type}'`] });
    if (lb.services.length > type.max_services || lb.targets.length > type.max_targets) {
      throw new HcloudError(
        "invalid_load_balancer_type",
        `${type.name} cannot hold this load balancer's services and targets`,
      );
    }
    return world.act("change_type", [ref(lb)], () => {
      lb.load_balancer_type = type;
    });
  },
  enable_public_interface: (world: World, lb: LoadBalancer, _body: unknown) =>
    world.act("enable_public_interface", [ref(lb)], () => {
      lb.public_net.enabled = true;
    }),
  disable_public_interface: (world: World, lb: LoadBalancer, _body: unknown) => {
    world.actions.assertUnlocked(ref(lb));
    checkPublicInterface(lb, false);
    return world.act("disable_public_interface", [ref(lb)], () => {
      lb.public_net.enabled = false;
    });
  },
  change_dns_ptr: (world: World, lb: LoadBalancer, body: { ip: string; dns_ptr: string | null }) => {
    const family = lb.public_net.ipv4.ip === body.ip ? "ipv4" : lb.public_net.ipv6.ip === body.ip ? "ipv6" : undefined;
    if (!family) throw invalidInput({ ip: [`${body.ip} is neither of load balancer ${lb.id}'s public addresses`] });
    return world.act("change_dns_ptr", [ref(lb)], () => {
      lb.public_net[family].dns_ptr = body.dns_ptr ?? `static.${lb.public_net.ipv4.ip}.clients.your-server.de`;
    });
  },
  change_protection: (world: World, lb: LoadBalancer, body: { delete?: boolean | undefined }) =>
    world.act("change_protection", [ref(lb)], () => {
      if (body.delete !== undefined) lb.protection.delete = body.delete;
    }),
} as const;

export type LoadBalancerCommand = keyof typeof loadBalancerActions;

/** Without a public interface, traffic reaches targets only through the network: each must use its private IP. */
function checkPublicInterface(lb: LoadBalancer, enabled: boolean): void {
  if (enabled) return;
  if (lb.private_net.length === 0) {
    throw new HcloudError(
      "load_balancer_not_attached_to_network",
      `load balancer ${lb.id} needs a network to go without a public interface`,
    );
  }
  if (lb.targets.some((t) => t.type !== "ip" && !t.use_private_ip)) {
    throw new HcloudError(
      "targets_without_use_private_ip",
      `load balancer ${lb.id} has targets that do not use their private IP`,
    );
  }
}

export function loadBalancerView(world: World, lb: LoadBalancer): Record<string, unknown> {
  return {
    ...structuredClone(lb),
    load_balancer_type: world.loadBalancerTypeView(lb.load_balancer_type),
    targets: lb.targets.map((t) => targetView(world, lb, t)),
    outgoing_traffic: 0,
    ingoing_traffic: 0,
    included_traffic: 21990232555520,
  };
}

function targetView(world: World, lb: LoadBalancer, t: LBTarget): Record<string, unknown> {
  const health = (serverId: number | undefined) =>
    lb.services.map((s) => {
      const server = serverId === undefined ? undefined : world.servers.get(serverId);
      const status =
        serverId === undefined
          ? "unknown"
          : server && settle(world, server).status === "running"
            ? "healthy"
            : "unhealthy";
      return { listen_port: s.listen_port, status };
    });
  if (t.type === "ip") return { ...structuredClone(t), health_status: health(undefined) };
  if (t.type === "server") return { ...structuredClone(t), health_status: health(t.server.id) };
  const matches = parseLabelSelector(t.label_selector.selector);
  const members = [...world.servers.values()]
    .filter((s) => matches(s.labels))
    .map((s) => ({
      type: "server",
      server: { id: s.id },
      use_private_ip: t.use_private_ip,
      health_status: health(s.id),
    }));
  return { ...structuredClone(t), targets: members };
}

const ref = (lb: LoadBalancer): ResourceRef => ({ id: lb.id, type: "load_balancer" });
