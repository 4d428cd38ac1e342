/**
 * Routes for the sandbox cloud. The framework passes the node UID as the name hint, and a dual-stack node gets
 * two routes with the same hint, so the cloud name is the hint plus the CIDR (`routeName`).
 *
 * Every create sends the target node's addresses; a cloud that keeps them (its `routeNodeAddresses` setting) lists
 * the route with them, and only such a route is reported with `enableNodeAddresses`, so the framework replaces it
 * when the node's addresses change and leaves the others alone.
 */
import type { Route, Routes } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import type { SandboxApi } from "./api/client.ts";

export interface RoutesOptions {
  /** Overrides the framework's `--cluster-name` on the routes this provider manages. */
  readonly cluster?: string | undefined;
}

/** `<hint>-<cidr>` with every character the cloud does not allow in names turned into `-`. */
export function routeName(nameHint: string, destinationCIDR: string): string {
  return `${nameHint}-${destinationCIDR}`.replace(/[^A-Za-z0-9]/g, "-").replace(/^-+/, "");
}

export function createRoutes(api: SandboxApi, options: RoutesOptions = {}) {
  return {
    async listRoutes(ctx, clusterName) {
      try {
        const routes = await api.listRoutes(ctx, options.cluster ?? clusterName);
        return routes.map(
          (r): Route => ({
            name: r.name,
            targetNode: r.targetNode,
            destinationCIDR: r.destinationCIDR,
            ...(r.targetNodeAddresses && {
              enableNodeAddresses: true,
              targetNodeAddresses: r.targetNodeAddresses.map((a) => ({ type: a.type, address: a.address })),
            }),
          }),
        );
      } catch (err) {
        throw wrapError("sandbox/routes.list", err);
      }
    },

    async createRoute(ctx, clusterName, nameHint, route) {
      const name = routeName(nameHint, route.destinationCIDR);
      try {
        const cluster = options.cluster ?? clusterName;
        await api.createRoute(ctx, {
          name,
          cluster,
          targetNode: route.targetNode,
          destinationCIDR: route.destinationCIDR,
          nameHint,
          ...(route.targetNodeAddresses && { targetNodeAddresses: route.targetNodeAddresses }),
        });
      } catch (err) {
        throw wrapError(`sandbox/routes.create ${name}`, err);
      }
    },

    /** A route that is already gone counts as deleted. */
    async deleteRoute(ctx, _clusterName, route) {
      try {
        await api.deleteRoute(ctx, route.name);
      } catch (err) {
        throw wrapError(`sandbox/routes.delete ${route.name}`, err);
      }
    },
  } satisfies Routes;
}
