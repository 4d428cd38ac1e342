/**
 * Facts about the Load Balancer API v1 as the official SDK `@scaleway/sdk-lb` restates it (scaleway-sdk-js
 * `packages_generated/lb/src/v1/{types,marshalling,api}.gen.ts`), restated by hand like sdk-facts.ts: for each
 * answer type the wire fields its unmarshaler reads, which its type requires, their JSON types and the enums; the
 * zoned API's zones and list endpoints. No file of the SDK is copied.
 */
import type { TypeFacts } from "./sdk-facts.ts";

const LB_STATUS = [
  "unknown",
  "ready",
  "pending",
  "stopped",
  "error",
  "locked",
  "migrating",
  "to_create",
  "creating",
  "to_delete",
  "deleting",
];
const SSL_LEVELS = [
  "ssl_compatibility_level_unknown",
  "ssl_compatibility_level_intermediate",
  "ssl_compatibility_level_modern",
  "ssl_compatibility_level_old",
];

/** `Lb` (`unmarshalLb`). */
export const lb: TypeFacts = {
  required: {
    id: "string",
    name: "string",
    description: "string",
    status: "string",
    instances: "array",
    organization_id: "string",
    project_id: "string",
    ip: "array",
    tags: "array",
    frontend_count: "integer",
    backend_count: "integer",
    type: "string",
    ssl_compatibility_level: "string",
    private_network_count: "integer",
    route_count: "integer",
    zone: "string",
  },
  optional: { subscriber: "object|null", created_at: "string|null", updated_at: "string|null", region: "string|null" },
  enums: { status: LB_STATUS, ssl_compatibility_level: SSL_LEVELS },
};

/** `Instance` (`unmarshalInstance`), the items of `Lb.instances`. */
export const lbInstance: TypeFacts = {
  required: { id: "string", status: "string", ip_address: "string", zone: "string" },
  optional: { created_at: "string|null", updated_at: "string|null", region: "string|null" },
  enums: { status: ["unknown", "ready", "pending", "stopped", "error", "locked", "migrating"] },
};

/** `Ip` (`unmarshalIp`). */
export const lbIp: TypeFacts = {
  required: {
    id: "string",
    ip_address: "string",
    organization_id: "string",
    project_id: "string",
    reverse: "string",
    tags: "array",
    zone: "string",
  },
  optional: { lb_id: "string|null", region: "string|null" },
  enums: {},
};

/** `Backend` (`unmarshalBackend`). */
export const lbBackend: TypeFacts = {
  required: {
    id: "string",
    name: "string",
    forward_protocol: "string",
    forward_port: "integer",
    forward_port_algorithm: "string",
    sticky_sessions: "string",
    sticky_sessions_cookie_name: "string",
    pool: "array",
    on_marked_down_action: "string",
    proxy_protocol: "string",
  },
  optional: {
    health_check: "object|null",
    lb: "object|null",
    send_proxy_v2: "boolean|null",
    timeout_server: "string|null",
    timeout_connect: "string|null",
    timeout_tunnel: "string|null",
    created_at: "string|null",
    updated_at: "string|null",
    failover_host: "string|null",
    ssl_bridging: "boolean|null",
    ignore_ssl_server_verify: "boolean|null",
    redispatch_attempt_count: "integer|null",
    max_retries: "integer|null",
    max_connections: "integer|null",
    timeout_queue: "string|null",
  },
  enums: {
    forward_protocol: ["tcp", "http"],
    forward_port_algorithm: ["roundrobin", "leastconn", "first"],
    sticky_sessions: ["none", "cookie", "table"],
    on_marked_down_action: ["on_marked_down_action_none", "shutdown_sessions"],
    proxy_protocol: [
      "proxy_protocol_unknown",
      "proxy_protocol_none",
      "proxy_protocol_v1",
      "proxy_protocol_v2",
      "proxy_protocol_v2_ssl",
      "proxy_protocol_v2_ssl_cn",
    ],
  },
};

/** `HealthCheck` (`unmarshalHealthCheck`); one of the `*_config` objects is set. */
export const lbHealthCheck: TypeFacts = {
  required: { port: "integer", check_max_retries: "integer", check_send_proxy: "boolean" },
  optional: {
    check_delay: "string|null",
    check_timeout: "string|null",
    transient_check_delay: "string|null",
    tcp_config: "object|null",
    mysql_config: "object|null",
    pgsql_config: "object|null",
    ldap_config: "object|null",
    redis_config: "object|null",
    http_config: "object|null",
    https_config: "object|null",
  },
  enums: {},
};

/** `Frontend` (`unmarshalFrontend`). */
export const lbFrontend: TypeFacts = {
  required: {
    id: "string",
    name: "string",
    inbound_port: "integer",
    certificate_ids: "array",
    enable_http3: "boolean",
    enable_access_logs: "boolean",
  },
  optional: {
    backend: "object|null",
    lb: "object|null",
    timeout_client: "string|null",
    certificate: "object|null",
    created_at: "string|null",
    updated_at: "string|null",
    connection_rate_limit: "integer|null",
  },
  enums: {},
};

/** `PrivateNetwork` (`unmarshalPrivateNetwork`). */
export const lbPrivateNetwork: TypeFacts = {
  required: { ipam_ids: "array", private_network_id: "string", status: "string" },
  optional: {
    lb: "object|null",
    static_config: "object|null",
    dhcp_config: "object|null",
    ipam_config: "object|null",
    created_at: "string|null",
    updated_at: "string|null",
  },
  enums: { status: ["unknown", "ready", "pending", "error"] },
};

/** `Acl` (`unmarshalAcl`), with its `AclMatch` and `AclAction`. */
export const lbAcl: TypeFacts = {
  required: { id: "string", name: "string", index: "integer", description: "string" },
  optional: { match: "object|null", action: "object|null", frontend: "object|null", created_at: "string|null" },
  enums: {},
};
export const lbAclMatch: TypeFacts = {
  required: {
    ip_subnet: "array",
    ips_edge_services: "boolean",
    http_filter: "string",
    http_filter_value: "array",
    invert: "boolean",
  },
  optional: { http_filter_option: "string|null" },
  enums: {},
};
export const lbAclAction: TypeFacts = {
  required: { type: "string" },
  optional: { redirect: "object|null" },
  enums: { type: ["allow", "deny", "redirect"] },
};

/** `ZonedAPI.LOCALITY`. */
export const lbZones = ["fr-par-1", "fr-par-2", "nl-ams-1", "nl-ams-2", "nl-ams-3", "pl-waw-1", "pl-waw-2", "pl-waw-3"];

/** The zoned API's list endpoints a CCM calls: all page by `page` and `page_size`. */
export const lbListKeys = {
  lbs: "lbs",
  ips: "ips",
  backends: "backends",
  frontends: "frontends",
  privateNetworks: "private_network",
} as const;
