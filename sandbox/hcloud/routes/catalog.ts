/** The read-only catalogue: locations, datacenters, server types and load-balancer types, listed and by ID. */
import { notFound } from "../errors.ts";
import { list } from "../listing.ts";
import { datacenters, loadBalancerTypes, locations, serverTypes } from "../state/catalog.ts";
import type { World } from "../state/world.ts";
import { type Endpoint, idParam, json, listAnswer } from "./endpoint.ts";

/** `view` gives an entry as this project sees it (a load balancer type's deprecation); default as it is. */
function catalogue<T extends { id: number; name: string }>(
  path: string,
  plural: string,
  singular: string,
  all: readonly T[],
  view: (world: World, x: T) => unknown = (_world, x) => x,
): Endpoint[] {
  const sortable = { id: (x: T) => x.id, name: (x: T) => x.name };
  return [
    {
      method: "GET",
      route: `/${path}`,
      handle: ({ url, world }) =>
        listAnswer(plural, list(all, url, { sortable, name: (x) => x.name }), (x) => view(world, x)),
    },
    {
      method: "GET",
      route: `/${path}/:id`,
      handle: (call) => {
        const id = idParam(call);
        const found = all.find((x) => x.id === id);
        if (!found) throw notFound(singular, id);
        return json({ [singular]: view(call.world, found) });
      },
    },
  ];
}

export const catalogEndpoints: Endpoint[] = [
  ...catalogue("locations", "locations", "location", locations),
  ...catalogue("datacenters", "datacenters", "datacenter", datacenters),
  ...catalogue("server_types", "server_types", "server_type", serverTypes),
  ...catalogue("load_balancer_types", "load_balancer_types", "load_balancer_type", loadBalancerTypes, (world, type) =>
    world.loadBalancerTypeView(type),
  ),
];
