/**
 * Octavia's children of a load balancer under `/load-balancer/v2/lbaas`: listeners, pools, batch member updates and
 * health monitors. Each change refuses with 409 unless the load balancer is `ACTIVE`, and leaves it `PENDING_UPDATE`.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import { listenerBody, memberBody, monitorBody, poolBody } from "./octavia-bodies.ts";
import {
  BASE,
  body,
  listenerIn,
  loadBalancer,
  makeListener,
  makeMember,
  makeMonitor,
  makePool,
  memberIn,
  monitorIn,
  poolIn,
} from "./octavia-requests.ts";
import {
  beginUpdate,
  type HealthMonitor,
  type LoadBalancer,
  listenerOwner,
  monitorOwner,
  poolOwner,
} from "./octavia-state.ts";
import { type Call, type Endpoint, json } from "./server.ts";

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

export const octaviaChildEndpoints: readonly Endpoint[] = [
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
