/**
 * The bodies of the Load Balancer API's backend, health-check and frontend writes, as the SDK marshals them
 * (`marshalZonedApiCreateBackendRequest`, `…UpdateBackendRequest`, `…UpdateHealthCheckRequest`,
 * `…CreateFrontendRequest`). Durations travel as protobuf JSON durations (`"5s"`, `"0.500s"`) and come back in that
 * canonical form whatever form was sent, so a client must compare them as durations.
 */
import * as v from "valibot";
import type { HealthCheck } from "../state/lb.ts";

/** `"5s"`, `"0.5s"`, `"10.000s"` → the canonical `"5s"`, `"0.500s"`. */
export const protoDuration = v.pipe(
  v.string(),
  v.regex(/^\d+(\.\d{1,9})?s$/, 'must be a duration in seconds such as "5s" or "0.5s"'),
  v.transform((t) => {
    const ms = Math.round(Number(t.slice(0, -1)) * 1000);
    return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(3)}s`;
  }),
);

const int32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2_147_483_647));
const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
const nullable = <S extends v.GenericSchema>(s: S) => v.optional(v.nullable(s), null);

const httpConfig = v.object({
  uri: v.string(),
  method: v.string(),
  code: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  host_header: v.optional(v.string(), ""),
});
const CONFIGS = {
  tcp_config: v.object({}),
  redis_config: v.object({}),
  ldap_config: v.object({}),
  mysql_config: v.object({ user: v.string() }),
  pgsql_config: v.object({ user: v.string() }),
  http_config: httpConfig,
  https_config: v.object({ ...httpConfig.entries, sni: v.optional(v.string(), "") }),
} as const;

export const healthCheckBody = v.pipe(
  v.object({
    port,
    check_delay: v.optional(protoDuration, "3s"),
    check_timeout: v.optional(protoDuration, "1s"),
    check_max_retries: v.optional(int32, 3),
    check_send_proxy: v.optional(v.boolean(), false),
    transient_check_delay: v.optional(protoDuration, "0.500s"),
    tcp_config: v.optional(CONFIGS.tcp_config),
    redis_config: v.optional(CONFIGS.redis_config),
    ldap_config: v.optional(CONFIGS.ldap_config),
    mysql_config: v.optional(CONFIGS.mysql_config),
    pgsql_config: v.optional(CONFIGS.pgsql_config),
    http_config: v.optional(CONFIGS.http_config),
    https_config: v.optional(CONFIGS.https_config),
  }),
  v.check(
    (hc) => Object.keys(CONFIGS).filter((k) => hc[k as keyof typeof CONFIGS] !== undefined).length <= 1,
    "give at most one of tcp_config, http_config, https_config, mysql_config, pgsql_config, redis_config, ldap_config",
  ),
);

export function healthCheckOf(body: v.InferOutput<typeof healthCheckBody>): HealthCheck {
  const kind = (Object.keys(CONFIGS) as (keyof typeof CONFIGS)[]).find((k) => body[k] !== undefined) ?? "tcp_config";
  return {
    port: body.port,
    check_delay: body.check_delay,
    check_timeout: body.check_timeout,
    check_max_retries: body.check_max_retries,
    check_send_proxy: body.check_send_proxy,
    transient_check_delay: body.transient_check_delay,
    config: { [kind]: body[kind] ?? {} },
  };
}

const backendFields = {
  name: v.pipe(v.string(), v.nonEmpty()),
  forward_protocol: v.picklist(["tcp", "http"]),
  forward_port: port,
  forward_port_algorithm: v.optional(v.picklist(["roundrobin", "leastconn", "first"]), "roundrobin"),
  sticky_sessions: v.optional(v.picklist(["none", "cookie", "table"]), "none"),
  sticky_sessions_cookie_name: v.optional(v.string(), ""),
  proxy_protocol: v.optional(
    v.picklist([
      "proxy_protocol_none",
      "proxy_protocol_v1",
      "proxy_protocol_v2",
      "proxy_protocol_v2_ssl",
      "proxy_protocol_v2_ssl_cn",
    ]),
    "proxy_protocol_none",
  ),
  on_marked_down_action: v.optional(
    v.picklist(["on_marked_down_action_none", "shutdown_sessions"]),
    "on_marked_down_action_none",
  ),
  send_proxy_v2: v.optional(v.boolean(), false),
  timeout_server: nullable(protoDuration),
  timeout_connect: nullable(protoDuration),
  timeout_tunnel: nullable(protoDuration),
  timeout_queue: nullable(protoDuration),
  failover_host: nullable(v.string()),
  ssl_bridging: nullable(v.boolean()),
  ignore_ssl_server_verify: nullable(v.boolean()),
  redispatch_attempt_count: nullable(int32),
  max_retries: nullable(int32),
  max_connections: nullable(int32),
};

export const backendBody = v.object({
  ...backendFields,
  health_check: healthCheckBody,
  server_ip: v.optional(v.array(v.pipe(v.string(), v.ip())), []),
});

export const backendUpdate = v.object(backendFields);

export const frontendBody = v.object({
  name: v.pipe(v.string(), v.nonEmpty()),
  inbound_port: port,
  backend_id: v.pipe(v.string(), v.uuid("must be a backend's UUID")),
  certificate_id: v.optional(v.pipe(v.string(), v.uuid("must be a certificate's UUID"))),
  certificate_ids: v.optional(v.array(v.pipe(v.string(), v.uuid("must be a certificate's UUID")))),
  timeout_client: v.optional(protoDuration),
  enable_http3: v.optional(v.boolean(), false),
  enable_access_logs: v.optional(v.boolean(), false),
  connection_rate_limit: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
});
