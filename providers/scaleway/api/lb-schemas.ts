/**
 * The Load Balancer API's answers as the provider reads them, and its write bodies, in one normalised shape so the
 * planner compares like with like: durations in milliseconds (the API answers protobuf JSON durations such as
 * `"0.500s"`), absent optional values `undefined`. Wire names as `@scaleway/sdk-lb`'s generated types give them
 * (`unmarshalLb`, `unmarshalIp`, `unmarshalBackend`, `unmarshalHealthCheck`, `unmarshalFrontend`); schemas ask only
 * for what the provider uses, so unknown fields are ignored.
 */
import * as v from "valibot";
import { durationMs, maybe, strings, text, wireDuration } from "./lb-wire.ts";

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

export * from "./lb-backend-schemas.ts";
export { durationMs, wireDuration } from "./lb-wire.ts";

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

const opt = <T>(x: T | null | undefined): T | undefined => (x === null ? undefined : x);

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
