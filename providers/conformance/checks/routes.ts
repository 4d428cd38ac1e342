/**
 * Routes: create, list (target node and CIDR as given), delete as listed, and two routes for one dual-stack node
 * sharing a name hint.
 */
import type { Route, Routes } from "../../cloud.ts";
import { answer, must, show } from "../contract.ts";
import type { Check, CheckContext } from "../types.ts";

function routes(t: CheckContext): Routes {
  const api = t.provider.routes;
  must(api !== undefined, "provider.routes disappeared between reads; a capability must not change");
  return api;
}

function list(t: CheckContext, when: string): Promise<Route[]> {
  return answer(`routes.listRoutes ${when}`, () => routes(t).listRoutes(t.ctx, t.clusterName));
}

function create(t: CheckContext, hint: string, targetNode: string, destinationCIDR: string): Promise<void> {
  return answer(`routes.createRoute(${destinationCIDR} via ${targetNode})`, () =>
    routes(t).createRoute(t.ctx, t.clusterName, hint, { name: "", targetNode, destinationCIDR }),
  );
}

/** The listed routes for `cidr`; exactly one must target `node`. */
function mustList(all: readonly Route[], node: string, cidr: string, when: string): Route {
  const matching = all.filter((r) => r.destinationCIDR === cidr);
  must(
    matching.length === 1,
    `listRoutes ${when} must list exactly one route for ${cidr}; got ${matching.length} (all: ${show(all)})`,
  );
  const [route] = matching as [Route];
  must(
    route.targetNode === node,
    `listRoutes must report targetNode ${show(node)} for ${cidr}; got ${show(route.targetNode)}`,
  );
  must(
    typeof route.name === "string" && route.name !== "",
    `listRoutes must report the route's cloud name; got ${show(route.name)}`,
  );
  return route;
}

async function remove(t: CheckContext, route: Route): Promise<void> {
  await answer(`routes.deleteRoute(${show(route.name)})`, () => routes(t).deleteRoute(t.ctx, t.clusterName, route));
}

export const routeChecks: readonly Check[] = [
  {
    id: "routes/create-list-delete",
    capability: "routes",
    title: "a created route is listed with its target node and CIDR, and is gone after deleting it as listed",
    async run(t) {
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      const cidr = "10.244.1.0/24";
      await create(t, crypto.randomUUID(), m.nodeName, cidr);
      const route = mustList(await list(t, "after createRoute"), m.nodeName, cidr, "after createRoute");
      await remove(t, route);
      const left = (await list(t, "after deleteRoute")).filter((r) => r.destinationCIDR === cidr);
      must(left.length === 0, `deleteRoute must remove the route; listRoutes still has ${show(left)}`);
    },
  },
  {
    id: "routes/dual-stack",
    capability: "routes",
    title: "two CIDRs of one node with the same name hint become two distinct routes",
    async run(t) {
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      const hint = crypto.randomUUID();
      const v4 = "10.244.2.0/24";
      const v6 = "fd00:10:244:2::/64";
      await create(t, hint, m.nodeName, v4);
      await create(t, hint, m.nodeName, v6);
      const all = await list(t, "after two createRoute calls with one name hint");
      const a = mustList(all, m.nodeName, v4, "after the dual-stack creates");
      const b = mustList(all, m.nodeName, v6, "after the dual-stack creates");
      must(
        a.name !== b.name,
        `a dual-stack node's two routes need distinct names (derive them from the hint and the CIDR); both are ${show(a.name)}`,
      );
      await remove(t, a);
      await remove(t, b);
      const left = (await list(t, "after deleting both")).filter(
        (r) => r.destinationCIDR === v4 || r.destinationCIDR === v6,
      );
      must(left.length === 0, `deleteRoute must remove both routes; listRoutes still has ${show(left)}`);
    },
  },
];
