/**
 * Backends and their health checks as the provider reads and writes them (`unmarshalBackend`,
 * `unmarshalHealthCheck`, `CreateBackendRequest`, `UpdateBackendRequest`, `UpdateHealthCheckRequest` of
 * `@scaleway/sdk-lb`), durations in milliseconds; see lb-schemas.ts.
 */
import * as v from "valibot";
import { durationMs, maybe, strings, text, wireDuration } from "./lb-wire.ts";

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
