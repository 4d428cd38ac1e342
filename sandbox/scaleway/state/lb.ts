/**
 * The Load Balancer API's resources (`/lb/v1/zones/{zone}/…`): load balancers, their flexible IPs, frontends,
 * backends (with their health check and server pool), certificates and private-network attachments. A new or
 * migrated load balancer is `pending` for `readyAfterMs`, then `ready`; while it is not ready the API refuses to
 * change its frontends and backends (`transient_state`), as Scaleway's does. Wire names and required fields are the
 * SDK's (`unmarshalLb`, `unmarshalIp`, `unmarshalBackend`, `unmarshalFrontend`, …; sandbox/scaleway/testdata).
 */
import { notFound, ScwError } from "../errors.ts";
import { iso, publicV4, publicV6, regionOf, type World } from "./world.ts";

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

export function aclView(a: Acl) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    index: a.index,
    action: { type: a.action },
    match: {
      ip_subnet: a.ipSubnet,
      ips_edge_services: false,
      http_filter: "acl_http_filter_none",
      http_filter_value: [],
      invert: a.invert,
    },
    created_at: iso(a.created),
    updated_at: iso(a.created),
  };
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

export function lbIpView(ip: LbIp, organizationId: string) {
  return {
    id: ip.id,
    ip_address: ip.address,
    organization_id: organizationId,
    project_id: ip.project,
    lb_id: ip.lbId ?? null,
    reverse: ip.reverse,
    tags: ip.tags,
    region: regionOf(ip.zone),
    zone: ip.zone,
  };
}

export function lbView(world: World, lb: LoadBalancer) {
  const status = lbStatus(world, lb);
  const ips = [...world.lb.ips.values()].filter((ip) => ip.lbId === lb.id);
  const count = <T extends { lbId: string }>(items: Iterable<T>) => [...items].filter((i) => i.lbId === lb.id).length;
  return {
    id: lb.id,
    name: lb.name,
    description: lb.description,
    status,
    instances: [
      {
        id: lb.id.replace(/^.{8}/, "00000000"),
        status,
        ip_address: "10.64.0.2",
        created_at: iso(lb.created),
        updated_at: iso(lb.updated),
        region: regionOf(lb.zone),
        zone: lb.zone,
      },
    ],
    organization_id: world.organizationId,
    project_id: lb.project,
    ip: ips.map((ip) => lbIpView(ip, world.organizationId)),
    tags: lb.tags,
    frontend_count: count(world.lb.frontends.values()),
    backend_count: count(world.lb.backends.values()),
    type: lb.type,
    ssl_compatibility_level: lb.sslCompatibilityLevel,
    created_at: iso(lb.created),
    updated_at: iso(lb.updated),
    private_network_count: count(world.lb.privateNetworks),
    route_count: 0,
    region: regionOf(lb.zone),
    zone: lb.zone,
  };
}

export function healthCheckView(hc: HealthCheck) {
  return {
    port: hc.port,
    check_delay: hc.check_delay,
    check_timeout: hc.check_timeout,
    check_max_retries: hc.check_max_retries,
    check_send_proxy: hc.check_send_proxy,
    transient_check_delay: hc.transient_check_delay,
    ...hc.config,
  };
}

export function backendView(world: World, b: Backend) {
  const lb = world.lb.lbs.get(b.lbId);
  return {
    id: b.id,
    ...b.fields,
    health_check: healthCheckView(b.healthCheck),
    pool: b.pool,
    ...(lb ? { lb: lbView(world, lb) } : {}),
    created_at: iso(b.created),
    updated_at: iso(b.updated),
  };
}

export function certificateView(world: World, c: Certificate) {
  const lb = world.lb.lbs.get(c.lbId);
  return {
    id: c.id,
    type: "custom",
    name: c.name,
    common_name: c.commonName,
    subject_alternative_name: [],
    fingerprint: "00:00",
    status: "ready",
    status_details: "",
    not_valid_before: iso(c.created),
    not_valid_after: iso(c.created + 365 * 86_400_000),
    created_at: iso(c.created),
    updated_at: iso(c.created),
    ...(lb ? { lb: lbView(world, lb) } : {}),
  };
}

export function frontendView(world: World, f: Frontend) {
  const lb = world.lb.lbs.get(f.lbId);
  const backend = world.lb.backends.get(f.backendId);
  const first = world.lb.certificates.get(f.certificateIds[0] ?? "");
  return {
    id: f.id,
    name: f.name,
    inbound_port: f.inboundPort,
    ...(backend ? { backend: backendView(world, backend) } : {}),
    ...(lb ? { lb: lbView(world, lb) } : {}),
    timeout_client: f.timeoutClient,
    ...(first ? { certificate: certificateView(world, first) } : {}),
    certificate_ids: f.certificateIds,
    created_at: iso(f.created),
    updated_at: iso(f.updated),
    enable_http3: f.enableHttp3,
    connection_rate_limit: f.connectionRateLimit,
    enable_access_logs: f.enableAccessLogs,
  };
}

export function privateNetworkView(world: World, a: PrivateNetworkAttachment) {
  const lb = world.lb.lbs.get(a.lbId);
  return {
    ...(lb ? { lb: lbView(world, lb) } : {}),
    ipam_ids: a.ipamIds,
    ipam_config: {},
    private_network_id: a.privateNetworkId,
    status: "ready",
    created_at: iso(a.created),
    updated_at: iso(a.created),
  };
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
