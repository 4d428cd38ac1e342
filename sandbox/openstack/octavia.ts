/**
 * Octavia (Load Balancer API v2) under `/load-balancer/v2/lbaas`: load balancers (fully populated creates with
 * listeners, default pools, members and health monitors) and cascade delete, with the provisioning state machine of
 * octavia-state.ts; their children are in octavia-children.ts. Lists filter by `name`, `tags` and
 * `loadbalancer_id`. The `amphora` and `ovn` providers differ as Octavia says: `ovn` takes only the
 * `SOURCE_IP_PORT` algorithm and no health monitor of type HTTP, `amphora` no `SOURCE_IP_PORT`.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import { loadBalancerBody } from "./octavia-bodies.ts";
import { octaviaChildEndpoints } from "./octavia-children.ts";
import { BASE, body, lbIn, loadBalancer, makeListener } from "./octavia-requests.ts";
import { addVipPort, beginUpdate, type LoadBalancer, removeLoadBalancer, settle } from "./octavia-state.ts";
import { type Call, type Endpoint, json } from "./server.ts";

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

export const octaviaEndpoints: readonly Endpoint[] = [
  { service: "load-balancer", method: "GET", route: `${BASE}/loadbalancers`, handle: listLoadBalancers },
  { service: "load-balancer", method: "POST", route: `${BASE}/loadbalancers`, handle: createLoadBalancer },
  { service: "load-balancer", method: "GET", route: `${BASE}/loadbalancers/:id`, handle: showLoadBalancer },
  { service: "load-balancer", method: "PUT", route: `${BASE}/loadbalancers/:id`, handle: updateLoadBalancer },
  { service: "load-balancer", method: "DELETE", route: `${BASE}/loadbalancers/:id`, handle: deleteLoadBalancer },
  ...octaviaChildEndpoints,
];
