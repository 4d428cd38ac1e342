/**
 * The Load Balancer API's answers as the provider reads them, and its write bodies, in one normalised shape so the
 * planner compares like with like: durations in milliseconds (the API answers protobuf JSON durations such as
 * `"0.500s"`), absent optional values `undefined`. Wire names as `@scaleway/sdk-lb`'s generated types give them
 * (`unmarshalLb`, `unmarshalIp`, `unmarshalBackend`, `unmarshalHealthCheck`, `unmarshalFrontend`); schemas ask only
 * for what the provider uses, so unknown fields are ignored.
 */
import * as v from "valibot";

const text = v.optional(v.nullable(v.string()), "");
const strings = v.optional(v.nullable(v.array(v.string())), []);
const maybe = <S extends v.GenericSchema>(s: S) => v.optional(v.nullable(s));

/** `"5s"`, `"0.500s"`, `"1.5s"` → milliseconds. */
export const durationMs = v.pipe(
  v.string(),
  v.regex(/^\d+(\.\d+)?s$/, "is not a duration in seconds"),
  v.transform((t) => Math.round(Number(t.slice(0, -1)) * 1000)),
);

/** Milliseconds → the API's form: `5000` → `"5s"`, `500` → `"0.5s"`. */
export function wireDuration(ms: number): string {
  return `${ms / 1000}s`;
}

export interface LbIp {
  readonly id: string;
  readonly address: string;
  readonly ipv6: boolean;
  /** The load balancer it is attached to, or `""`. */
  readonly lbId: string;
  /** The reverse DNS name (`51-15-0-1.lb.fr-par.scw.cloud`), which `use-hostname` reports. */
  readonly reverse: string;
}

const ipSchema = v.pipe(
  v.object({ id: v.string(), ip_address: v.string(), lb_id: text, reverse: text }),
  v.transform(
    (ip): LbIp => ({
      id: ip.id,
      address: ip.ip_address,
      ipv6: ip.ip_address.includes(":"),
      lbId: ip.lb_id ?? "",
      reverse: ip.reverse ?? "",
    }),
  ),
);
export const lbIpSchema = ipSchema;

export interface ScwLoadBalancer {
  readonly id: string;
  readonly zone: string;
  readonly name: string;
  readonly description: string;
  /** `ready`, `pending`, `migrating`, … */
  readonly status: string;
  readonly type: string;
  readonly tags: readonly string[];
  readonly sslCompatibilityLevel: string;
  readonly ips: readonly LbIp[];
}

export const loadBalancerSchema = v.pipe(
  v.object({
    id: v.string(),
    zone: v.string(),
    name: v.string(),
    description: text,
    status: v.string(),
    type: v.string(),
    tags: strings,
    ssl_compatibility_level: text,
    ip: v.optional(v.nullable(v.array(ipSchema)), []),
  }),
  v.transform(
    (lb): ScwLoadBalancer => ({
      id: lb.id,
      zone: lb.zone,
      name: lb.name,
      description: lb.description ?? "",
      status: lb.status,
      type: lb.type.toLowerCase(),
      tags: lb.tags ?? [],
      sslCompatibilityLevel: lb.ssl_compatibility_level ?? "",
      ips: lb.ip ?? [],
    }),
  ),
);

export type HealthCheckKind = "tcp" | "http" | "https" | "mysql" | "pgsql" | "redis" | "ldap";

export interface HealthCheckSpec {
  readonly port: number;
  readonly delayMs?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly maxRetries: number;
  readonly sendProxy: boolean;
  readonly transientDelayMs?: number | undefined;
  readonly kind: HealthCheckKind;
  /** `http` and `https`. */
  readonly http?: { readonly uri: string; readonly method: string; readonly code: number; readonly hostHeader: string };
  /** `mysql` and `pgsql`. */
  readonly user?: string;
}

const KINDS: readonly HealthCheckKind[] = ["tcp", "http", "https", "mysql", "pgsql", "redis", "ldap"];

const httpConfig = v.object({ uri: text, method: text, code: maybe(v.number()), host_header: text });

const healthCheckSchema = v.pipe(
  v.object({
    port: v.number(),
    check_delay: maybe(durationMs),
    check_timeout: maybe(durationMs),
    check_max_retries: v.optional(v.nullable(v.number()), 0),
    check_send_proxy: v.optional(v.nullable(v.boolean()), false),
    transient_check_delay: maybe(durationMs),
    http_config: maybe(httpConfig),
    https_config: maybe(httpConfig),
    mysql_config: maybe(v.object({ user: text })),
    pgsql_config: maybe(v.object({ user: text })),
    tcp_config: maybe(v.object({})),
    redis_config: maybe(v.object({})),
    ldap_config: maybe(v.object({})),
  }),
  v.transform((hc): HealthCheckSpec => {
    const kind = KINDS.find((k) => hc[`${k}_config`] != null) ?? "tcp";
    const http = hc.http_config ?? hc.https_config;
    const user = (hc.mysql_config ?? hc.pgsql_config)?.user;
    return {
      port: hc.port,
      delayMs: hc.check_delay ?? undefined,
      timeoutMs: hc.check_timeout ?? undefined,
      maxRetries: hc.check_max_retries ?? 0,
      sendProxy: hc.check_send_proxy ?? false,
      transientDelayMs: hc.transient_check_delay ?? undefined,
      kind,
      ...(http && (kind === "http" || kind === "https")
        ? {
            http: {
              uri: http.uri ?? "",
              method: http.method ?? "",
              code: http.code ?? 200,
              hostHeader: http.host_header ?? "",
            },
          }
        : {}),
      ...(user !== undefined && user !== null ? { user } : {}),
    };
  }),
);

/** The health check as the API takes it (`UpdateHealthCheckRequest`, `CreateBackendRequest.health_check`). */
export function healthCheckBody(hc: HealthCheckSpec): Record<string, unknown> {
  const config =
    hc.kind === "http" || hc.kind === "https"
      ? {
          uri: hc.http?.uri ?? "/",
          method: hc.http?.method ?? "GET",
          code: hc.http?.code ?? 200,
          host_header: hc.http?.hostHeader ?? "",
        }
      : hc.kind === "mysql" || hc.kind === "pgsql"
        ? { user: hc.user ?? "" }
        : {};
  return {
    port: hc.port,
    check_max_retries: hc.maxRetries,
    check_send_proxy: hc.sendProxy,
    ...(hc.delayMs === undefined ? {} : { check_delay: wireDuration(hc.delayMs) }),
    ...(hc.timeoutMs === undefined ? {} : { check_timeout: wireDuration(hc.timeoutMs) }),
    ...(hc.transientDelayMs === undefined ? {} : { transient_check_delay: wireDuration(hc.transientDelayMs) }),
    [`${hc.kind}_config`]: config,
  };
}

/** What a backend is configured as: everything but its ID and server pool. */
export interface BackendSpec {
  readonly name: string;
  readonly forwardProtocol: "tcp" | "http";
  readonly forwardPort: number;
  readonly algorithm: string;
  readonly stickySessions: string;
  readonly cookieName: string;
  readonly proxyProtocol: string;
  readonly onMarkedDownAction: string;
  readonly timeoutServerMs?: number | undefined;
  readonly timeoutConnectMs?: number | undefined;
  readonly timeoutTunnelMs?: number | undefined;
  readonly timeoutQueueMs?: number | undefined;
  readonly failoverHost?: string | undefined;
  readonly sslBridging?: boolean | undefined;
  readonly ignoreSslServerVerify?: boolean | undefined;
  readonly redispatchAttemptCount?: number | undefined;
  readonly maxRetries?: number | undefined;
  readonly maxConnections?: number | undefined;
  readonly healthCheck: HealthCheckSpec;
}

export interface ScwBackend extends BackendSpec {
  readonly id: string;
  readonly pool: readonly string[];
}

const opt = <T>(x: T | null | undefined): T | undefined => (x === null ? undefined : x);

export const backendSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    forward_protocol: v.picklist(["tcp", "http"]),
    forward_port: v.number(),
    forward_port_algorithm: text,
    sticky_sessions: text,
    sticky_sessions_cookie_name: text,
    proxy_protocol: text,
    on_marked_down_action: text,
    timeout_server: maybe(durationMs),
    timeout_connect: maybe(durationMs),
    timeout_tunnel: maybe(durationMs),
    timeout_queue: maybe(durationMs),
    failover_host: maybe(v.string()),
    ssl_bridging: maybe(v.boolean()),
    ignore_ssl_server_verify: maybe(v.boolean()),
    redispatch_attempt_count: maybe(v.number()),
    max_retries: maybe(v.number()),
    max_connections: maybe(v.number()),
    health_check: healthCheckSchema,
    pool: strings,
  }),
  v.transform(
    (b): ScwBackend => ({
      id: b.id,
      name: b.name,
      forwardProtocol: b.forward_protocol,
      forwardPort: b.forward_port,
      algorithm: b.forward_port_algorithm ?? "",
      stickySessions: b.sticky_sessions ?? "",
      cookieName: b.sticky_sessions_cookie_name ?? "",
      proxyProtocol: b.proxy_protocol ?? "",
      onMarkedDownAction: b.on_marked_down_action ?? "",
      timeoutServerMs: opt(b.timeout_server),
      timeoutConnectMs: opt(b.timeout_connect),
      timeoutTunnelMs: opt(b.timeout_tunnel),
      timeoutQueueMs: opt(b.timeout_queue),
      failoverHost: opt(b.failover_host),
      sslBridging: opt(b.ssl_bridging),
      ignoreSslServerVerify: opt(b.ignore_ssl_server_verify),
      redispatchAttemptCount: opt(b.redispatch_attempt_count),
      maxRetries: opt(b.max_retries),
      maxConnections: opt(b.max_connections),
      healthCheck: b.health_check,
      pool: b.pool ?? [],
    }),
  ),
);

/** The backend's fields as `CreateBackendRequest` and `UpdateBackendRequest` take them (no health check, no pool). */
export function backendBody(b: BackendSpec): Record<string, unknown> {
  const ms = (x: number | undefined) => (x === undefined ? undefined : wireDuration(x));
  const body: Record<string, unknown> = {
    name: b.name,
    forward_protocol: b.forwardProtocol,
    forward_port: b.forwardPort,
    forward_port_algorithm: b.algorithm,
    sticky_sessions: b.stickySessions,
    sticky_sessions_cookie_name: b.cookieName,
    proxy_protocol: b.proxyProtocol,
    on_marked_down_action: b.onMarkedDownAction,
    timeout_server: ms(b.timeoutServerMs),
    timeout_connect: ms(b.timeoutConnectMs),
    timeout_tunnel: ms(b.timeoutTunnelMs),
    timeout_queue: ms(b.timeoutQueueMs),
    failover_host: b.failoverHost,
    ssl_bridging: b.sslBridging,
    ignore_ssl_server_verify: b.ignoreSslServerVerify,
    redispatch_attempt_count: b.redispatchAttemptCount,
    max_retries: b.maxRetries,
    max_connections: b.maxConnections,
  };
  return Object.fromEntries(Object.entries(body).filter(([, x]) => x !== undefined));
}

export interface FrontendSpec {
  readonly name: string;
  readonly inboundPort: number;
  readonly timeoutClientMs?: number | undefined;
  readonly certificateIds: readonly string[];
  readonly enableHttp3: boolean;
  readonly enableAccessLogs: boolean;
  readonly connectionRateLimit?: number | undefined;
}

export interface ScwFrontend extends FrontendSpec {
  readonly id: string;
  readonly backendId: string;
}

export const frontendSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    inbound_port: v.number(),
    backend: maybe(v.object({ id: v.string() })),
    timeout_client: maybe(durationMs),
    certificate_ids: strings,
    enable_http3: v.optional(v.nullable(v.boolean()), false),
    enable_access_logs: v.optional(v.nullable(v.boolean()), false),
    connection_rate_limit: maybe(v.number()),
  }),
  v.transform(
    (f): ScwFrontend => ({
      id: f.id,
      name: f.name,
      inboundPort: f.inbound_port,
      backendId: f.backend?.id ?? "",
      timeoutClientMs: opt(f.timeout_client),
      certificateIds: f.certificate_ids ?? [],
      enableHttp3: f.enable_http3 ?? false,
      enableAccessLogs: f.enable_access_logs ?? false,
      connectionRateLimit: opt(f.connection_rate_limit),
    }),
  ),
);

export function frontendBody(f: FrontendSpec, backendId: string): Record<string, unknown> {
  return {
    name: f.name,
    inbound_port: f.inboundPort,
    backend_id: backendId,
    certificate_ids: f.certificateIds,
    enable_http3: f.enableHttp3,
    enable_access_logs: f.enableAccessLogs,
    ...(f.timeoutClientMs === undefined ? {} : { timeout_client: wireDuration(f.timeoutClientMs) }),
    ...(f.connectionRateLimit === undefined ? {} : { connection_rate_limit: f.connectionRateLimit }),
  };
}

export const privateNetworkSchema = v.pipe(
  v.object({ private_network_id: v.string(), ipam_ids: strings }),
  v.transform((p) => ({ privateNetworkId: p.private_network_id, ipamIds: p.ipam_ids ?? [] })),
);
export type LbPrivateNetwork = v.InferOutput<typeof privateNetworkSchema>;

/** One access-list rule of a frontend, as the provider writes and compares them (`AclSpec`). */
export interface AclSpec {
  readonly name: string;
  readonly index: number;
  readonly action: string;
  readonly ipSubnet: readonly string[];
}

export const aclSchema = v.pipe(
  v.object({
    name: v.string(),
    index: v.number(),
    action: maybe(v.object({ type: v.string() })),
    match: maybe(v.object({ ip_subnet: strings })),
  }),
  v.transform(
    (a): AclSpec => ({
      name: a.name,
      index: a.index,
      action: a.action?.type ?? "",
      ipSubnet: a.match?.ip_subnet ?? [],
    }),
  ),
);

export function aclBody(a: AclSpec): Record<string, unknown> {
  return { name: a.name, index: a.index, action: { type: a.action }, match: { ip_subnet: a.ipSubnet } };
}
