/**
 * What Octavia's requests carry (Load Balancer API v2), and the records they make: the request schemas, reading a
 * body under its key (a 400 naming the attribute), and the makers of listeners, pools, members and monitors with
 * the `amphora` and `ovn` providers' rules.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import type { HealthMonitor, Listener, LoadBalancer, Member, Pool } from "./octavia-state.ts";
import type { Call } from "./server.ts";
import type { World } from "./state.ts";

export const BASE = "/load-balancer/v2/lbaas";
const int = v.pipe(v.number(), v.integer());

export const monitorIn = v.object({
  name: v.optional(v.string(), ""),
  type: v.picklist(["HTTP", "HTTPS", "PING", "TCP", "TLS-HELLO", "UDP-CONNECT", "SCTP"]),
  delay: int,
  timeout: int,
  max_retries: v.pipe(int, v.minValue(1), v.maxValue(10)),
  max_retries_down: v.optional(v.pipe(int, v.minValue(1), v.maxValue(10)), 3),
  url_path: v.optional(v.string()),
  http_method: v.optional(v.string()),
  expected_codes: v.optional(v.string()),
});
export const memberIn = v.object({
  name: v.optional(v.string(), ""),
  address: v.string(),
  protocol_port: v.pipe(int, v.minValue(1), v.maxValue(65535)),
  subnet_id: v.optional(v.string()),
  weight: v.optional(int, 1),
  monitor_port: v.optional(v.nullable(v.pipe(int, v.minValue(1), v.maxValue(65535))), null),
});
export const poolIn = v.object({
  name: v.optional(v.string(), ""),
  protocol: v.picklist(["HTTP", "HTTPS", "PROXY", "PROXYV2", "SCTP", "TCP", "UDP"]),
  lb_algorithm: v.picklist(["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"]),
  session_persistence: v.optional(v.nullable(v.object({ type: v.string() })), null),
  members: v.optional(v.array(memberIn), []),
  healthmonitor: v.optional(monitorIn),
  listener_id: v.optional(v.string()),
  loadbalancer_id: v.optional(v.string()),
});
export const listenerIn = v.object({
  name: v.optional(v.string(), ""),
  protocol: v.picklist(["HTTP", "HTTPS", "SCTP", "TCP", "TERMINATED_HTTPS", "UDP"]),
  protocol_port: v.pipe(int, v.minValue(1), v.maxValue(65535)),
  connection_limit: v.optional(int, -1),
  timeout_client_data: v.optional(int, 50000),
  timeout_member_connect: v.optional(int, 5000),
  timeout_member_data: v.optional(int, 50000),
  timeout_tcp_inspect: v.optional(int, 0),
  insert_headers: v.optional(v.record(v.string(), v.string()), {}),
  allowed_cidrs: v.optional(v.nullable(v.array(v.string())), null),
  default_tls_container_ref: v.optional(v.nullable(v.string()), null),
  tags: v.optional(v.array(v.string()), []),
  default_pool: v.optional(poolIn),
  default_pool_id: v.optional(v.string()),
  loadbalancer_id: v.optional(v.string()),
});
export const lbIn = v.object({
  name: v.optional(v.string(), ""),
  description: v.optional(v.string(), ""),
  provider: v.optional(v.string(), "amphora"),
  vip_subnet_id: v.optional(v.string()),
  vip_network_id: v.optional(v.string()),
  vip_port_id: v.optional(v.string()),
  vip_address: v.optional(v.string()),
  flavor_id: v.optional(v.string(), ""),
  availability_zone: v.optional(v.nullable(v.string()), null),
  tags: v.optional(v.array(v.string()), []),
  listeners: v.optional(v.array(listenerIn), []),
});

export async function body<S extends v.GenericSchema>(call: Call, key: string, schema: S): Promise<v.InferOutput<S>> {
  const raw = (await call.body()) as Record<string, unknown>;
  const parsed = v.safeParse(schema, raw?.[key]);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue?.path?.map((p) => String(p.key)).join(".") ?? key;
    throw new OsError(400, `Invalid input for field/attribute ${path}. Value: ${issue?.message ?? "missing"}`);
  }
  return parsed.output;
}

export function loadBalancer(world: World, id: string): LoadBalancer {
  const lb = world.octavia.loadBalancers.get(id);
  if (!lb) throw new OsError(404, `Load Balancer ${id} could not be found.`);
  return lb;
}

function checkProvider(lb: Pick<LoadBalancer, "provider">, pool: v.InferOutput<typeof poolIn>): void {
  if (lb.provider === "ovn" && pool.lb_algorithm !== "SOURCE_IP_PORT") {
    throw new OsError(
      400,
      `Provider 'ovn' does not support a requested option: OVN provider does not support ${pool.lb_algorithm} algorithm`,
    );
  }
  if (lb.provider !== "ovn" && pool.lb_algorithm === "SOURCE_IP_PORT") {
    throw new OsError(
      400,
      `Provider '${lb.provider}' does not support a requested option: lb_algorithm SOURCE_IP_PORT`,
    );
  }
  if (lb.provider === "ovn" && pool.healthmonitor?.type.startsWith("HTTP")) {
    throw new OsError(
      400,
      `Provider 'ovn' does not support a requested option: health monitor type ${pool.healthmonitor.type}`,
    );
  }
}

export function makeMonitor(world: World, m: v.InferOutput<typeof monitorIn>): HealthMonitor {
  return {
    id: world.uuid(),
    name: m.name,
    type: m.type,
    delay: m.delay,
    timeout: m.timeout,
    maxRetries: m.max_retries,
    maxRetriesDown: m.max_retries_down,
    ...(m.url_path === undefined ? {} : { urlPath: m.url_path }),
    ...(m.http_method === undefined ? {} : { httpMethod: m.http_method }),
    ...(m.expected_codes === undefined ? {} : { expectedCodes: m.expected_codes }),
  };
}

export function makeMember(world: World, lb: LoadBalancer, m: v.InferOutput<typeof memberIn>): Member {
  return {
    id: world.uuid(),
    name: m.name,
    address: m.address,
    protocolPort: m.protocol_port,
    subnetID: m.subnet_id ?? lb.vipSubnetID,
    weight: m.weight,
    monitorPort: m.monitor_port,
  };
}

export function makePool(world: World, lb: LoadBalancer, p: v.InferOutput<typeof poolIn>, listenerID?: string): Pool {
  checkProvider(lb, p);
  return {
    id: world.uuid(),
    name: p.name,
    protocol: p.protocol,
    lbAlgorithm: p.lb_algorithm,
    sessionPersistence: p.session_persistence,
    listenerID,
    members: p.members.map((m) => makeMember(world, lb, m)),
    monitor: p.healthmonitor && makeMonitor(world, p.healthmonitor),
  };
}

export function makeListener(world: World, lb: LoadBalancer, l: v.InferOutput<typeof listenerIn>): Listener {
  if (lb.listeners.some((x) => x.protocolPort === l.protocol_port && x.protocol === l.protocol)) {
    throw new OsError(409, `Another Listener on this Load Balancer is already using protocol_port ${l.protocol_port}`);
  }
  const listener: Listener = {
    id: world.uuid(),
    name: l.name,
    protocol: l.protocol,
    protocolPort: l.protocol_port,
    connectionLimit: l.connection_limit,
    defaultPoolID: l.default_pool_id ?? null,
    timeouts: {
      clientData: l.timeout_client_data,
      memberConnect: l.timeout_member_connect,
      memberData: l.timeout_member_data,
      tcpInspect: l.timeout_tcp_inspect,
    },
    insertHeaders: l.insert_headers,
    allowedCIDRs: l.allowed_cidrs ?? [],
    defaultTlsContainerRef: l.default_tls_container_ref,
    tags: l.tags,
  };
  if (l.default_pool) {
    const pool = makePool(world, lb, l.default_pool, listener.id);
    lb.pools.push(pool);
    listener.defaultPoolID = pool.id;
  }
  return listener;
}
