/**
 * The Load Balancer API's answers as the emulator writes them: every field `@scaleway/sdk-lb`'s unmarshalers read
 * (`unmarshalLb`, `unmarshalIp`, `unmarshalBackend`, `unmarshalHealthCheck`, `unmarshalFrontend`,
 * `unmarshalCertificate`, `unmarshalPrivateNetwork`, `unmarshalAcl`), restated in testdata/sdk-lb-facts.ts.
 */
import {
  type Acl,
  type Backend,
  type Certificate,
  type Frontend,
  type HealthCheck,
  type LbIp,
  type LoadBalancer,
  lbStatus,
  type PrivateNetworkAttachment,
} from "./lb.ts";
import { iso, regionOf, type World } from "./world.ts";

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
    type: c.type,
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
