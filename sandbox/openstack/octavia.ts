/**
 * Octavia (Load Balancer API v2) under `/load-balancer/v2/lbaas`: load balancers (fully populated creates with
 * listeners, default pools, members and health monitors), listeners, pools, batch member updates, health monitors,
 * cascade delete, and the provisioning state machine of octavia-state.ts. Lists filter by `name`, `tags` and
 * `loadbalancer_id`. The `amphora` and `ovn` providers differ as Octavia says: `ovn` takes only the
 * `SOURCE_IP_PORT` algorithm and no health monitor of type HTTP, `amphora` no `SOURCE_IP_PORT`.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import { listenerBody, loadBalancerBody, memberBody, monitorBody, poolBody } from "./octavia-bodies.ts";
import {
  addVipPort,
  beginUpdate,
  type HealthMonitor,
  type Listener,
  type LoadBalancer,
  listenerOwner,
  type Member,
  monitorOwner,
  type Pool,
  poolOwner,
  removeLoadBalancer,
  settle,
} from "./octavia-state.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import type { World } from "./state.ts";

const BASE = "/load-balancer/v2/lbaas";
const int = v.pipe(v.number(), v.integer());

const monitorIn = v.object({
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
const memberIn = v.object({
  name: v.optional(v.string(), ""),
  address: v.string(),
  protocol_port: v.pipe(int, v.minValue(1), v.maxValue(65535)),
  subnet_id: v.optional(v.string()),
  weight: v.optional(int, 1),
  monitor_port: v.optional(v.nullable(v.pipe(int, v.minValue(1), v.maxValue(65535))), null),
});
const poolIn = v.object({
  name: v.optional(v.string(), ""),
  protocol: v.picklist(["HTTP", "HTTPS", "PROXY", "PROXYV2", "SCTP", "TCP", "UDP"]),
  lb_algorithm: v.picklist(["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"]),
  session_persistence: v.optional(v.nullable(v.object({ type: v.string() })), null),
  members: v.optional(v.array(memberIn), []),
  healthmonitor: v.optional(monitorIn),
  listener_id: v.optional(v.string()),
  loadbalancer_id: v.optional(v.string()),
});
const listenerIn = v.object({
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
const lbIn = v.object({
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

async function body<S extends v.GenericSchema>(call: Call, key: string, schema: S): Promise<v.InferOutput<S>> {
  const raw = (await call.body()) as Record<string, unknown>;
  const parsed = v.safeParse(schema, raw?.[key]);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue?.path?.map((p) => String(p.key)).join(".") ?? key;
    throw new OsError(400, `Invalid input for field/attribute ${path}. Value: ${issue?.message ?? "missing"}`);
  }
  return parsed.output;
}

function loadBalancer(world: World, id: string): LoadBalancer {
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

function makeMonitor(world: World, m: v.InferOutput<typeof monitorIn>): HealthMonitor {
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

function makeMember(world: World, lb: LoadBalancer, m: v.InferOutput<typeof memberIn>): Member {
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

function makePool(world: World, lb: LoadBalancer, p: v.InferOutput<typeof poolIn>, listenerID?: string): Pool {
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

function makeListener(world: World, lb: LoadBalancer, l: v.InferOutput<typeof listenerIn>): Listener {
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

async function createLoadBalancer(call: Call): Promise<Response> {
  const world = call.world;
  const spec = await body(call, "loadbalancer", lbIn);
  const fromPort = spec.vip_port_id === undefined ? undefined : world.ports.get(spec.vip_port_id);
  if (spec.vip_port_id !== undefined && !fromPort)
    throw new OsError(400, `Port ${spec.vip_port_id} could not be found.`);
  const bySubnet = [...world.networks.values()].find((n) => n.subnetID === spec.vip_subnet_id);
  if (spec.vip_subnet_id !== undefined && !bySubnet)
    throw new OsError(400, `Subnet ${spec.vip_subnet_id} could not be found.`);
  const networkID = fromPort?.networkID ?? bySubnet?.id ?? spec.vip_network_id;
  if (networkID === undefined) {
    throw new OsError(400, "Validation failure: VIP must contain one of: vip_port_id, vip_network_id, vip_subnet_id.");
  }
  const id = world.uuid();
  const port = fromPort ?? addVipPort(world, networkID, id, spec.vip_address);
  const network = world.networks.get(networkID);
  const lb: LoadBalancer = {
    id,
    name: spec.name,
    description: spec.description,
    provider: spec.provider,
    vipAddress: port.fixedIPs[0] ?? "",
    vipPortID: port.id,
    vipSubnetID: network?.subnetID ?? "",
    vipNetworkID: networkID,
    flavorID: spec.flavor_id,
    availabilityZone: spec.availability_zone,
    tags: spec.tags,
    status: "PENDING_CREATE",
    pendingLeft: world.octavia.pendingReads,
    fault: undefined,
    listeners: [],
    pools: [],
    created: world.now(),
  };
  for (const l of spec.listeners) lb.listeners.push(makeListener(world, lb, l));
  world.octavia.loadBalancers.set(id, lb);
  return json({ loadbalancer: loadBalancerBody(call, lb) }, 201);
}

function listLoadBalancers(call: Call): Response {
  const q = call.url.searchParams;
  const all = [...call.world.octavia.loadBalancers.values()];
  for (const lb of all) settle(call.world, lb);
  const name = q.get("name");
  const tags = q.get("tags")?.split(",") ?? [];
  const found = [...call.world.octavia.loadBalancers.values()].filter(
    (lb) => (name === null || lb.name === name) && tags.every((t) => lb.tags.includes(t)),
  );
  return json({ loadbalancers: found.map((lb) => loadBalancerBody(call, lb)) });
}

function showLoadBalancer(call: Call): Response {
  const lb = loadBalancer(call.world, call.params.id ?? "");
  settle(call.world, lb);
  if (!call.world.octavia.loadBalancers.has(lb.id))
    throw new OsError(404, `Load Balancer ${lb.id} could not be found.`);
  return json({ loadbalancer: loadBalancerBody(call, lb) });
}

async function updateLoadBalancer(call: Call): Promise<Response> {
  const lb = loadBalancer(call.world, call.params.id ?? "");
  const change = await body(
    call,
    "loadbalancer",
    v.object({
      name: v.optional(v.string()),
      description: v.optional(v.string()),
      tags: v.optional(v.array(v.string())),
    }),
  );
  beginUpdate(call.world, lb);
  if (change.name !== undefined) lb.name = change.name;
  if (change.description !== undefined) lb.description = change.description;
  if (change.tags !== undefined) lb.tags = change.tags;
  return json({ loadbalancer: loadBalancerBody(call, lb) }, 200);
}

function deleteLoadBalancer(call: Call): Response {
  const world = call.world;
  const lb = loadBalancer(world, call.params.id ?? "");
  if (lb.status !== "ACTIVE" && lb.status !== "ERROR") {
    throw new OsError(409, `Invalid state ${lb.status} of loadbalancer resource ${lb.id}`);
  }
  const cascade = call.url.searchParams.get("cascade") === "true";
  if (!cascade && (lb.listeners.length > 0 || lb.pools.length > 0)) {
    throw new OsError(400, `Cannot delete Load Balancer ${lb.id} - it has children`);
  }
  lb.status = "PENDING_DELETE";
  lb.pendingLeft = world.octavia.pendingReads;
  lb.fault = lb.fault === "stuck" ? "stuck" : undefined;
  if (world.octavia.pendingReads <= 0) removeLoadBalancer(world, lb);
  return new Response(null, { status: 204 });
}

function byLoadBalancer<T>(
  call: Call,
  pick: (lb: LoadBalancer) => readonly T[],
  shape: (lb: LoadBalancer, t: T) => unknown,
) {
  const wanted = call.url.searchParams.get("loadbalancer_id");
  const out: unknown[] = [];
  for (const lb of call.world.octavia.loadBalancers.values()) {
    if (wanted === null || lb.id === wanted) for (const t of pick(lb)) out.push(shape(lb, t));
  }
  return out;
}

export const octaviaEndpoints: readonly Endpoint[] = [
  { service: "load-balancer", method: "GET", route: `${BASE}/loadbalancers`, handle: listLoadBalancers },
  { service: "load-balancer", method: "POST", route: `${BASE}/loadbalancers`, handle: createLoadBalancer },
  { service: "load-balancer", method: "GET", route: `${BASE}/loadbalancers/:id`, handle: showLoadBalancer },
  { service: "load-balancer", method: "PUT", route: `${BASE}/loadbalancers/:id`, handle: updateLoadBalancer },
  { service: "load-balancer", method: "DELETE", route: `${BASE}/loadbalancers/:id`, handle: deleteLoadBalancer },
  {
    service: "load-balancer",
    method: "GET",
    route: `${BASE}/listeners`,
    handle: (call) =>
      json({
        listeners: byLoadBalancer(
          call,
          (lb) => lb.listeners,
          (lb, l) => listenerBody(call, lb, l),
        ),
      }),
  },
  {
    service: "load-balancer",
    method: "POST",
    route: `${BASE}/listeners`,
    async handle(call) {
      const spec = await body(call, "listener", listenerIn);
      const lb = loadBalancer(call.world, spec.loadbalancer_id ?? "");
      beginUpdate(call.world, lb);
      const listener = makeListener(call.world, lb, spec);
      lb.listeners.push(listener);
      return json({ listener: listenerBody(call, lb, listener) }, 201);
    },
  },
  {
    service: "load-balancer",
    method: "PUT",
    route: `${BASE}/listeners/:id`,
    async handle(call) {
      const { lb, listener } = listenerOwner(call.world, call.params.id ?? "");
      const c = await body(call, "listener", v.partial(v.omit(listenerIn, ["default_pool"])));
      beginUpdate(call.world, lb);
      if (c.name !== undefined) listener.name = c.name;
      if (c.connection_limit !== undefined) listener.connectionLimit = c.connection_limit;
      if (c.timeout_client_data !== undefined) listener.timeouts.clientData = c.timeout_client_data;
      if (c.timeout_member_connect !== undefined) listener.timeouts.memberConnect = c.timeout_member_connect;
      if (c.timeout_member_data !== undefined) listener.timeouts.memberData = c.timeout_member_data;
      if (c.timeout_tcp_inspect !== undefined) listener.timeouts.tcpInspect = c.timeout_tcp_inspect;
      if (c.insert_headers !== undefined) listener.insertHeaders = c.insert_headers;
      if (c.allowed_cidrs !== undefined) listener.allowedCIDRs = c.allowed_cidrs ?? [];
      if (c.default_tls_container_ref !== undefined) listener.defaultTlsContainerRef = c.default_tls_container_ref;
      if (c.default_pool_id !== undefined) listener.defaultPoolID = c.default_pool_id;
      if (c.tags !== undefined) listener.tags = c.tags;
      return json({ listener: listenerBody(call, lb, listener) });
    },
  },
  {
    service: "load-balancer",
    method: "DELETE",
    route: `${BASE}/listeners/:id`,
    handle(call) {
      const { lb, listener } = listenerOwner(call.world, call.params.id ?? "");
      beginUpdate(call.world, lb);
      lb.listeners.splice(lb.listeners.indexOf(listener), 1);
      for (const p of lb.pools) if (p.listenerID === listener.id) p.listenerID = undefined;
      return new Response(null, { status: 204 });
    },
  },
  {
    service: "load-balancer",
    method: "GET",
    route: `${BASE}/pools`,
    handle: (call) =>
      json({
        pools: byLoadBalancer(
          call,
          (lb) => lb.pools,
          (lb, p) => poolBody(call, lb, p),
        ),
      }),
  },
  {
    service: "load-balancer",
    method: "POST",
    route: `${BASE}/pools`,
    async handle(call) {
      const spec = await body(call, "pool", poolIn);
      const owner = spec.listener_id ? listenerOwner(call.world, spec.listener_id) : undefined;
      const lb = owner?.lb ?? loadBalancer(call.world, spec.loadbalancer_id ?? "");
      beginUpdate(call.world, lb);
      const pool = makePool(call.world, lb, spec, owner?.listener.id);
      lb.pools.push(pool);
      if (owner) owner.listener.defaultPoolID = pool.id;
      return json({ pool: poolBody(call, lb, pool) }, 201);
    },
  },
  {
    service: "load-balancer",
    method: "PUT",
    route: `${BASE}/pools/:id`,
    async handle(call) {
      const { lb, pool } = poolOwner(call.world, call.params.id ?? "");
      const c = await body(call, "pool", v.partial(v.pick(poolIn, ["name", "lb_algorithm", "session_persistence"])));
      beginUpdate(call.world, lb);
      if (c.name !== undefined) pool.name = c.name;
      if (c.lb_algorithm !== undefined) pool.lbAlgorithm = c.lb_algorithm;
      if (c.session_persistence !== undefined) pool.sessionPersistence = c.session_persistence;
      return json({ pool: poolBody(call, lb, pool) });
    },
  },
  {
    service: "load-balancer",
    method: "DELETE",
    route: `${BASE}/pools/:id`,
    handle(call) {
      const { lb, pool } = poolOwner(call.world, call.params.id ?? "");
      beginUpdate(call.world, lb);
      lb.pools.splice(lb.pools.indexOf(pool), 1);
      for (const l of lb.listeners) if (l.defaultPoolID === pool.id) l.defaultPoolID = null;
      return new Response(null, { status: 204 });
    },
  },
  {
    service: "load-balancer",
    method: "GET",
    route: `${BASE}/pools/:id/members`,
    handle(call) {
      const { lb, pool } = poolOwner(call.world, call.params.id ?? "");
      return json({ members: pool.members.map((m) => memberBody(call, lb, m)) });
    },
  },
  {
    service: "load-balancer",
    method: "PUT",
    route: `${BASE}/pools/:id/members`,
    async handle(call) {
      const { lb, pool } = poolOwner(call.world, call.params.id ?? "");
      const members = await body(call, "members", v.array(memberIn));
      beginUpdate(call.world, lb);
      const kept = (m: v.InferOutput<typeof memberIn>) =>
        pool.members.find((x) => x.address === m.address && x.protocolPort === m.protocol_port);
      pool.members = members.map((m) => {
        const old = kept(m);
        return old
          ? { ...old, name: m.name, weight: m.weight, monitorPort: m.monitor_port }
          : makeMember(call.world, lb, m);
      });
      return new Response(null, { status: 202 });
    },
  },
  {
    service: "load-balancer",
    method: "GET",
    route: `${BASE}/healthmonitors/:id`,
    handle(call) {
      const { lb, pool } = monitorOwner(call.world, call.params.id ?? "");
      return json({ healthmonitor: monitorBody(call, lb, pool, pool.monitor as HealthMonitor) });
    },
  },
  {
    service: "load-balancer",
    method: "POST",
    route: `${BASE}/healthmonitors`,
    async handle(call) {
      const spec = await body(call, "healthmonitor", v.object({ ...monitorIn.entries, pool_id: v.string() }));
      const { lb, pool } = poolOwner(call.world, spec.pool_id);
      if (pool.monitor) throw new OsError(409, `Pool ${pool.id} already has a health monitor`);
      if (lb.provider === "ovn" && spec.type.startsWith("HTTP")) {
        throw new OsError(400, `Provider 'ovn' does not support a requested option: health monitor type ${spec.type}`);
      }
      beginUpdate(call.world, lb);
      pool.monitor = makeMonitor(call.world, spec);
      return json({ healthmonitor: monitorBody(call, lb, pool, pool.monitor) }, 201);
    },
  },
  {
    service: "load-balancer",
    method: "PUT",
    route: `${BASE}/healthmonitors/:id`,
    async handle(call) {
      const { lb, pool } = monitorOwner(call.world, call.params.id ?? "");
      const c = await body(call, "healthmonitor", v.partial(v.omit(monitorIn, ["type"])));
      beginUpdate(call.world, lb);
      const m = pool.monitor as HealthMonitor;
      if (c.name !== undefined) m.name = c.name;
      if (c.delay !== undefined) m.delay = c.delay;
      if (c.timeout !== undefined) m.timeout = c.timeout;
      if (c.max_retries !== undefined) m.maxRetries = c.max_retries;
      if (c.max_retries_down !== undefined) m.maxRetriesDown = c.max_retries_down;
      return json({ healthmonitor: monitorBody(call, lb, pool, m) });
    },
  },
  {
    service: "load-balancer",
    method: "DELETE",
    route: `${BASE}/healthmonitors/:id`,
    handle(call) {
      const { lb, pool } = monitorOwner(call.world, call.params.id ?? "");
      beginUpdate(call.world, lb);
      pool.monitor = undefined;
      return new Response(null, { status: 204 });
    },
  },
];
