/**
 * Load balancers. A new one is `new` with no IP; once `lbActiveDelayMs` has passed it is `active` with an address
 * from 203.0.113.0/24, noticed by whoever reads it next. With a `tag`, its Droplets are the ones carrying the tag.
 */
import { notFound } from "../errors.ts";
import { regionView } from "./regions.ts";
import type { World } from "./world.ts";

export interface ForwardingRule {
  entry_protocol: string;
  entry_port: number;
  target_protocol: string;
  target_port: number;
  certificate_id: string;
  tls_passthrough: boolean;
}

/** What a create or update body sets; the rest (ID, status, IP, times) the emulator owns. */
export interface LoadBalancerSpec {
  name: string;
  region: string;
  size_unit: number;
  size: string;
  algorithm: string;
  forwarding_rules: ForwardingRule[];
  health_check: Record<string, unknown>;
  sticky_sessions: Record<string, unknown>;
  redirect_http_to_https: boolean;
  enable_proxy_protocol: boolean;
  enable_backend_keepalive: boolean;
  http_idle_timeout_seconds: number;
  disable_lets_encrypt_dns_records: boolean;
  network: string;
  network_stack: string;
  type: string;
  vpc_uuid: string;
  project_id: string;
  firewall: Record<string, unknown>;
  tag: string;
  /** Tags on the load balancer itself (godo's `tags`), not the Droplet selector `tag`. */
  tags: string[];
  vpc_subnet_uuid: string;
  droplet_ids: number[];
}

export interface LoadBalancer {
  readonly id: string;
  readonly createdAt: number;
  readonly activeAt: number;
  status: "new" | "active" | "errored";
  ip: string;
  /** The address asked for at creation (BYOIP), given once it is active; else one from the pool. */
  readonly requestedIp?: string | undefined;
  spec: LoadBalancerSpec;
}

export function createLoadBalancer(world: World, spec: LoadBalancerSpec, requestedIp?: string): LoadBalancer {
  const now = world.now();
  const lb: LoadBalancer = {
    id: world.uuid(),
    createdAt: now,
    activeAt: now + world.lbActiveDelayMs,
    status: "new",
    ip: "",
    requestedIp,
    spec,
  };
  world.loadBalancers.set(lb.id, lb);
  settle(world, lb);
  return lb;
}

/** Moves a load balancer whose time has come to `active`, with its IP. */
function settle(world: World, lb: LoadBalancer): LoadBalancer {
  if (lb.status === "new" && world.now() >= lb.activeAt) {
    lb.status = "active";
    lb.ip = lb.requestedIp ?? world.lbIp();
  }
  return lb;
}

export function getLoadBalancer(world: World, id: string): LoadBalancer {
  const lb = world.loadBalancers.get(id);
  if (!lb) throw notFound();
  return settle(world, lb);
}

export function listLoadBalancers(world: World): LoadBalancer[] {
  return [...world.loadBalancers.values()]
    .map((lb) => settle(world, lb))
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

/** The Droplets behind it: the tagged ones when it selects by tag, else its list. */
export function backendIds(world: World, lb: LoadBalancer): number[] {
  if (lb.spec.tag === "") return [...lb.spec.droplet_ids];
  return [...world.droplets.values()].filter((d) => d.tags.includes(lb.spec.tag)).map((d) => d.id);
}

export function loadBalancerView(world: World, lb: LoadBalancer): object {
  const { region, droplet_ids: _ids, ...spec } = lb.spec;
  return {
    id: lb.id,
    ...spec,
    ip: lb.ip,
    ipv6: "",
    status: lb.status,
    created_at: world.iso(lb.createdAt),
    region: regionView(region),
    droplet_ids: backendIds(world, lb),
  };
}
