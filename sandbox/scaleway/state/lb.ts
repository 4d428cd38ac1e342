/**
 * The Load Balancer API's resources (`/lb/v1/zones/{zone}/…`): load balancers, their flexible IPs, frontends,
 * backends (with their health check and server pool), certificates and private-network attachments. A new or
 * migrated load balancer is `pending` for `readyAfterMs`, then `ready`; while it is not ready the API refuses to
 * change its frontends and backends (`transient_state`), as Scaleway's does. Wire names and required fields are the
 * SDK's (`unmarshalLb`, `unmarshalIp`, `unmarshalBackend`, `unmarshalFrontend`, …; sandbox/scaleway/testdata).
 */
import { notFound, ScwError } from "../errors.ts";
import { publicV4, publicV6, regionOf, type World } from "./world.ts";

/** The zones the SDK lists for the Load Balancer API (`ZonedAPI.LOCALITY`). */
export const lbZones = [
  "fr-par-1",
  "fr-par-2",
  "nl-ams-1",
  "nl-ams-2",
  "nl-ams-3",
  "pl-waw-1",
  "pl-waw-2",
  "pl-waw-3",
] as const;

export const lbTypes = ["lb-s", "lb-gp-m", "lb-gp-l", "lb-gp-xl"] as const;

export interface LbIp {
  readonly id: string;
  readonly zone: string;
  readonly address: string;
  readonly ipv6: boolean;
  readonly project: string;
  lbId: string | undefined;
  reverse: string;
  tags: string[];
}

export interface LoadBalancer {
  readonly id: string;
  readonly zone: string;
  readonly project: string;
  readonly created: number;
  name: string;
  description: string;
  type: string;
  tags: string[];
  sslCompatibilityLevel: string;
  /** Pending until this time (creation, migration), ready after. */
  readyAt: number;
  updated: number;
}

export interface HealthCheck {
  port: number;
  check_delay: string;
  check_timeout: string;
  check_max_retries: number;
  check_send_proxy: boolean;
  transient_check_delay: string;
  /** Exactly one of `tcp_config`, `http_config`, … as sent. */
  config: Record<string, unknown>;
}

export interface Backend {
  readonly id: string;
  readonly lbId: string;
  readonly created: number;
  updated: number;
  /** Every other wire field, as last written. */
  fields: BackendFields;
  healthCheck: HealthCheck;
  pool: string[];
}

export interface BackendFields {
  name: string;
  forward_protocol: string;
  forward_port: number;
  forward_port_algorithm: string;
  sticky_sessions: string;
  sticky_sessions_cookie_name: string;
  proxy_protocol: string;
  on_marked_down_action: string;
  send_proxy_v2: boolean;
  timeout_server: string | null;
  timeout_connect: string | null;
  timeout_tunnel: string | null;
  timeout_queue: string | null;
  failover_host: string | null;
  ssl_bridging: boolean | null;
  ignore_ssl_server_verify: boolean | null;
  redispatch_attempt_count: number | null;
  max_retries: number | null;
  max_connections: number | null;
}

export interface Frontend {
  readonly id: string;
  readonly lbId: string;
  readonly created: number;
  updated: number;
  name: string;
  inboundPort: number;
  backendId: string;
  timeoutClient: string | null;
  certificateIds: string[];
  enableHttp3: boolean;
  enableAccessLogs: boolean;
  connectionRateLimit: number | null;
}

export interface Certificate {
  readonly id: string;
  readonly lbId: string;
  readonly created: number;
  /** As the API spells it: `letsencryt` (sic, the SDK's `CertificateType`) or `custom`. */
  readonly type: "letsencryt" | "custom";
  name: string;
  commonName: string;
}

/** One rule of a frontend's access list (`SetACLs` replaces them all). */
export interface Acl {
  readonly id: string;
  readonly frontendId: string;
  readonly created: number;
  readonly name: string;
  readonly description: string;
  readonly index: number;
  readonly action: "allow" | "deny" | "redirect";
  readonly ipSubnet: readonly string[];
  readonly invert: boolean;
}

export interface PrivateNetworkAttachment {
  readonly lbId: string;
  readonly privateNetworkId: string;
  readonly created: number;
  ipamIds: string[];
}

/** Every Load Balancer API resource of the organisation. */
export class LbWorld {
  readonly lbs = new Map<string, LoadBalancer>();
  readonly ips = new Map<string, LbIp>();
  readonly backends = new Map<string, Backend>();
  readonly frontends = new Map<string, Frontend>();
  readonly certificates = new Map<string, Certificate>();
  readonly acls = new Map<string, Acl>();
  readonly privateNetworks: PrivateNetworkAttachment[] = [];
  /** How long a created or migrated load balancer stays `pending`. */
  readyAfterMs = 0;
}

export function lbStatus(world: World, lb: LoadBalancer): "pending" | "ready" {
  return world.now() < lb.readyAt ? "pending" : "ready";
}

/** The load balancer `id` in `zone`; `not_found` otherwise. */
export function getLb(world: World, zone: string, id: string): LoadBalancer {
  const lb = world.lb.lbs.get(id);
  if (!lb || lb.zone !== zone) throw notFound("lb", id);
  return lb;
}

/** Refuses a change to a load balancer that is not ready, as the API does (`transient_state`, 409). */
export function requireReady(world: World, lb: LoadBalancer): void {
  const status = lbStatus(world, lb);
  if (status !== "ready") {
    throw new ScwError("transient_state", "lb is in a transient state", {
      resource: "lb",
      resource_id: lb.id,
      current_state: status,
    });
  }
}

/** A new flexible IP, free or for `lbId`. */
export function createLbIp(world: World, zone: string, project: string, ipv6: boolean, lbId?: string): LbIp {
  const n = world.nextAddress();
  const address = ipv6 ? publicV6(n) : publicV4(n);
  const ip: LbIp = {
    id: world.uuid(),
    zone,
    address,
    ipv6,
    project,
    lbId,
    reverse: `${address.replaceAll(/[.:]+/g, "-").replace(/-$/, "")}.lb.${regionOf(zone)}.scw.cloud`,
    tags: [],
  };
  world.lb.ips.set(ip.id, ip);
  return ip;
}

/** Deletes the frontend with its access list. */
export function deleteFrontend(world: World, id: string): void {
  world.lb.frontends.delete(id);
  for (const [aclId, a] of world.lb.acls) if (a.frontendId === id) world.lb.acls.delete(aclId);
}

/** Deletes the load balancer with everything on it; its IPs are released or kept free. */
export function deleteLb(world: World, lb: LoadBalancer, releaseIp: boolean): void {
  const w = world.lb;
  for (const [id, f] of w.frontends) if (f.lbId === lb.id) deleteFrontend(world, id);
  for (const [id, b] of w.backends) if (b.lbId === lb.id) w.backends.delete(id);
  for (const [id, c] of w.certificates) if (c.lbId === lb.id) w.certificates.delete(id);
  for (let i = w.privateNetworks.length - 1; i >= 0; i--) {
    const a = w.privateNetworks[i];
    if (a?.lbId !== lb.id) continue;
    for (const id of a.ipamIds) world.ips.delete(id);
    w.privateNetworks.splice(i, 1);
  }
  for (const [id, ip] of w.ips) {
    if (ip.lbId !== lb.id) continue;
    if (releaseIp) w.ips.delete(id);
    else ip.lbId = undefined;
  }
  w.lbs.delete(lb.id);
}
