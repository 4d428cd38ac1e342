/**
 * Octavia's answers as the provider reads them (Load Balancer API v2). Only the fields it uses; unknown fields are
 * ignored, so a newer Octavia's additions change nothing.
 */
import * as v from "valibot";

const ref = v.object({ id: v.string() });

export const loadBalancerSchema = v.object({
  id: v.string(),
  name: v.optional(v.string(), ""),
  description: v.optional(v.nullable(v.string()), ""),
  provisioning_status: v.string(),
  operating_status: v.optional(v.string(), ""),
  provider: v.optional(v.string(), ""),
  vip_address: v.optional(v.string(), ""),
  vip_port_id: v.optional(v.string(), ""),
  vip_subnet_id: v.optional(v.string(), ""),
  vip_network_id: v.optional(v.string(), ""),
  flavor_id: v.optional(v.nullable(v.string()), ""),
  availability_zone: v.optional(v.nullable(v.string()), null),
  listeners: v.optional(v.array(ref), []),
  pools: v.optional(v.array(ref), []),
  tags: v.optional(v.nullable(v.array(v.string())), []),
});
export type OctaviaLoadBalancer = v.InferOutput<typeof loadBalancerSchema>;

export const listenerSchema = v.object({
  id: v.string(),
  name: v.optional(v.string(), ""),
  protocol: v.string(),
  protocol_port: v.number(),
  connection_limit: v.optional(v.number(), -1),
  default_pool_id: v.optional(v.nullable(v.string()), null),
  timeout_client_data: v.optional(v.nullable(v.number()), null),
  timeout_member_connect: v.optional(v.nullable(v.number()), null),
  timeout_member_data: v.optional(v.nullable(v.number()), null),
  timeout_tcp_inspect: v.optional(v.nullable(v.number()), null),
  insert_headers: v.optional(v.nullable(v.record(v.string(), v.string())), {}),
  allowed_cidrs: v.optional(v.nullable(v.array(v.string())), null),
  default_tls_container_ref: v.optional(v.nullable(v.string()), null),
  tags: v.optional(v.nullable(v.array(v.string())), []),
});
export type OctaviaListener = v.InferOutput<typeof listenerSchema>;

export const poolSchema = v.object({
  id: v.string(),
  name: v.optional(v.string(), ""),
  protocol: v.string(),
  lb_algorithm: v.string(),
  session_persistence: v.optional(v.nullable(v.object({ type: v.string() })), null),
  listeners: v.optional(v.array(ref), []),
  healthmonitor_id: v.optional(v.nullable(v.string()), null),
});
export type OctaviaPool = v.InferOutput<typeof poolSchema>;

export const memberSchema = v.object({
  id: v.string(),
  name: v.optional(v.string(), ""),
  address: v.string(),
  protocol_port: v.number(),
  subnet_id: v.optional(v.nullable(v.string()), null),
  monitor_port: v.optional(v.nullable(v.number()), null),
});
export type OctaviaMember = v.InferOutput<typeof memberSchema>;

export const monitorSchema = v.object({
  id: v.string(),
  name: v.optional(v.string(), ""),
  type: v.string(),
  delay: v.number(),
  timeout: v.number(),
  max_retries: v.number(),
  max_retries_down: v.optional(v.number(), 3),
  url_path: v.optional(v.string()),
});
export type OctaviaMonitor = v.InferOutput<typeof monitorSchema>;

export const floatingIPSchema = v.object({
  id: v.string(),
  floating_ip_address: v.string(),
  floating_network_id: v.string(),
  port_id: v.optional(v.nullable(v.string()), null),
  description: v.optional(v.nullable(v.string()), ""),
});
export type FloatingIP = v.InferOutput<typeof floatingIPSchema>;

/** A pool with what hangs off it. */
export interface PoolView {
  readonly pool: OctaviaPool;
  readonly members: readonly OctaviaMember[];
  readonly monitor: OctaviaMonitor | undefined;
}

/** A listener with its default pool. */
export interface ListenerView {
  readonly listener: OctaviaListener;
  readonly pool: PoolView | undefined;
}

/** A load balancer as the planner reads it: itself, its listeners and pools, and the floating IP on its VIP port. */
export interface LoadBalancerView {
  readonly lb: OctaviaLoadBalancer;
  readonly listeners: readonly ListenerView[];
  readonly floatingIP: FloatingIP | undefined;
}
