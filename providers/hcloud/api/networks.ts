/**
 * The private network the provider works in (`HCLOUD_NETWORK`, a name or an ID): read it with its routes, and add
 * or delete a route, each followed to the end of its action. Deleting a route that is already gone succeeds, so a
 * retried delete is harmless.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import { actionAnswer, followAction } from "./actions.ts";
import { type HcloudTransport, listAll } from "./client.ts";

export interface NetworkRoute {
  /** IPv4 CIDR: `10.244.1.0/24`. */
  readonly destination: string;
  /** A private address in the network: the node's. */
  readonly gateway: string;
}

export interface CloudNetwork {
  readonly id: number;
  readonly name: string;
  readonly ipRange: string;
  readonly routes: readonly NetworkRoute[];
}

const routeSchema = v.object({ destination: v.string(), gateway: v.string() });

export const networkSchema = v.pipe(
  v.object({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    name: v.string(),
    ip_range: v.optional(v.string(), ""),
    routes: v.optional(v.nullable(v.array(routeSchema)), []),
  }),
  v.transform((n): CloudNetwork => ({ id: n.id, name: n.name, ipRange: n.ip_range, routes: n.routes ?? [] })),
);

export interface HcloudNetworksApi {
  /** The network named by `HCLOUD_NETWORK` (all digits: an ID, else a name), or `undefined` when there is none. */
  getNetwork(ctx: CallContext, idOrName: string): Promise<CloudNetwork | undefined>;
  addRoute(ctx: CallContext, networkId: number, route: NetworkRoute): Promise<void>;
  deleteRoute(ctx: CallContext, networkId: number, route: NetworkRoute): Promise<void>;
}

const NAME = "hcloud/networks";

export class HcloudNetworks implements HcloudNetworksApi {
  readonly #t: HcloudTransport;

  constructor(transport: HcloudTransport) {
    this.#t = transport;
  }

  async getNetwork(ctx: CallContext, idOrName: string): Promise<CloudNetwork | undefined> {
    if (/^[0-9]+$/.test(idOrName)) {
      const answer = await this.#t.client.request(ctx, {
        operation: "getNetwork",
        method: "GET",
        path: `/networks/${Number(idOrName)}`,
        answer: v.object({ network: networkSchema }),
        notFound: true,
      });
      return answer?.network;
    }
    const found = await listAll(this.#t, ctx, {
      operation: "listNetworks",
      path: "/networks",
      key: "networks",
      item: networkSchema,
      query: { name: idOrName },
    });
    return found.find((n) => n.name === idOrName);
  }

  async addRoute(ctx: CallContext, networkId: number, route: NetworkRoute): Promise<void> {
    await this.#routeAction(ctx, "addRoute", "add_route", networkId, route);
  }

  async deleteRoute(ctx: CallContext, networkId: number, route: NetworkRoute): Promise<void> {
    try {
      await this.#routeAction(ctx, "deleteRoute", "delete_route", networkId, route);
    } catch (err) {
      if (!(err instanceof CloudApiError && err.code === "not_found")) throw err;
      // Either the network or the route is missing; only a route that is gone already (a retry after a lost answer,
      // someone else removed it) is what we wanted. The API's message does not say which, so look.
      const network = await this.getNetwork(ctx, String(networkId));
      if (network && !network.routes.some((r) => sameRoute(r, route))) return;
      throw err;
    }
  }

  async #routeAction(
    ctx: CallContext,
    operation: string,
    command: string,
    networkId: number,
    route: NetworkRoute,
  ): Promise<void> {
    const answer = await this.#t.client.request(ctx, {
      operation,
      method: "POST",
      path: `/networks/${networkId}/actions/${command}`,
      body: { destination: route.destination, gateway: route.gateway },
      answer: actionAnswer,
      // Adding a route twice is refused, never doubled; deleting twice finds nothing: both safe to repeat.
      idempotent: true,
    });
    await followAction(this.#t, ctx, answer.action, { operation: `${NAME}.${operation}` });
  }
}

const sameRoute = (a: NetworkRoute, b: NetworkRoute) => a.destination === b.destination && a.gateway === b.gateway;
