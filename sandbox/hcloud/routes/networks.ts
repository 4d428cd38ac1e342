/** `/networks`: list, create, get, update, delete, and the route and subnet actions. */
import * as v from "valibot";
import { notUnique } from "../errors.ts";
import { checkLabels } from "../labels.ts";
import { list } from "../listing.ts";
import { addRoute, addSubnet, createNetwork, deleteNetwork, deleteRoute, deleteSubnet } from "../state/networks.ts";
import type { Network } from "../state/types.ts";
import type { World } from "../state/world.ts";
import { resourceActionEndpoints } from "./actions.ts";
import { bodyOf, type Endpoint, idParam, json, labelsSchema, listAnswer, nameSchema } from "./endpoint.ts";

const routeSchema = v.object({ destination: v.string(), gateway: v.string() });
const subnetSchema = v.object({
  type: v.picklist(["cloud", "server", "vswitch"]),
  ip_range: v.exactOptional(v.string()),
  network_zone: v.picklist(["eu-central", "us-east", "us-west", "ap-southeast"]),
  vswitch_id: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
const createSchema = v.object({
  name: nameSchema,
  ip_range: v.string(),
  labels: v.exactOptional(labelsSchema),
  subnets: v.exactOptional(v.array(subnetSchema)),
  routes: v.exactOptional(v.array(routeSchema)),
  expose_routes_to_vswitch: v.exactOptional(v.boolean()),
});
const updateSchema = v.object({
  name: v.exactOptional(nameSchema),
  labels: v.exactOptional(labelsSchema),
  expose_routes_to_vswitch: v.exactOptional(v.boolean()),
});

const sortable = { id: (n: Network) => n.id, name: (n: Network) => n.name, created: (n: Network) => n.created };

export function networkView(world: World, n: Network): Record<string, unknown> {
  const attached = (r: { private_net: { network: number }[] }) => r.private_net.some((p) => p.network === n.id);
  return {
    ...structuredClone(n),
    servers: [...world.servers.values()].filter(attached).map((s) => s.id),
    load_balancers: [...world.loadBalancers.values()].filter(attached).map((lb) => lb.id),
  };
}

const action = <S extends v.GenericSchema>(
  name: string,
  schema: S,
  run: (world: World, n: Network, body: v.InferOutput<S>) => unknown,
): Endpoint => ({
  method: "POST",
  route: `/networks/:id/actions/${name}`,
  handle: async (call) => {
    const network = call.world.network(idParam(call));
    return json({ action: run(call.world, network, await bodyOf(call, schema)) }, 201);
  },
});

export const networkEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/networks",
    handle: ({ world, url }) =>
      listAnswer(
        "networks",
        list([...world.networks.values()], url, { sortable, name: (n) => n.name, labels: (n) => n.labels }),
        (n) => networkView(world, n),
      ),
  },
  {
    method: "POST",
    route: "/networks",
    handle: async (call) => {
      const body = await bodyOf(call, createSchema);
      if (body.labels) checkLabels(body.labels);
      return json({ network: networkView(call.world, createNetwork(call.world, body)) }, 201);
    },
  },
  {
    method: "GET",
    route: "/networks/:id",
    handle: (call) => json({ network: networkView(call.world, call.world.network(idParam(call))) }),
  },
  {
    method: "PUT",
    route: "/networks/:id",
    handle: async (call) => {
      const network = call.world.network(idParam(call));
      const body = await bodyOf(call, updateSchema);
      if (body.labels) checkLabels(body.labels);
      if (
        body.name !== undefined &&
        [...call.world.networks.values()].some((n) => n.name === body.name && n.id !== network.id)
      ) {
        throw notUnique("name", body.name);
      }
      Object.assign(network, body);
      return json({ network: networkView(call.world, network) });
    },
  },
  {
    method: "DELETE",
    route: "/networks/:id",
    handle: (call) => {
      deleteNetwork(call.world, call.world.network(idParam(call)));
      return new Response(null, { status: 204 });
    },
  },
  action("add_route", routeSchema, addRoute),
  action("delete_route", routeSchema, deleteRoute),
  action("add_subnet", subnetSchema, addSubnet),
  action("delete_subnet", v.object({ ip_range: v.string() }), (world, n, body) =>
    deleteSubnet(world, n, body.ip_range),
  ),
  action("change_protection", v.object({ delete: v.boolean() }), (world, n, body) =>
    world.act("change_protection", [{ id: n.id, type: "network" }], () => {
      n.protection.delete = body.delete;
    }),
  ),
  ...resourceActionEndpoints("networks", "network", (id, call) => call.world.network(id)),
];
