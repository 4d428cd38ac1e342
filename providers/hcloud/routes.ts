/**
 * Pod-CIDR routes in the private network `HCLOUD_NETWORK` (when `HCLOUD_NETWORK_ROUTES_ENABLED`, the default with
 * a network), as hccm keeps them: a route to a Node's pod CIDR through the private IP of the Node's Cloud server.
 *
 * Hetzner's routes have no names, so a route's name is derived from what identifies it, `<gateway>-<destination>`
 * (hccm's form): two CIDRs of one Node (one name hint) get two names, and a listed route deletes as listed.
 *
 * Every route of the network is listed: one whose gateway is no Cloud server's private IP is a blackhole, which
 * the route controller removes when it lies inside the cluster CIDR — so the leftovers that make hccm users hit
 * the 100-route limit go. A route outside the cluster CIDR (the operator's own) is never touched.
 *
 * Private networks carry IPv4 only: an IPv6 pod CIDR is refused with an error saying so, as in hccm.
 */
import type { ConsolaInstance } from "consola";
import type { Node } from "../../kube/objects.ts";
import type { CallContext, Route, Routes } from "../cloud.ts";
import { RetryError, wrapError } from "../errors.ts";
import { CloudApiError } from "../kit/http/errors.ts";
import type { HcloudNetworksApi, NetworkRoute } from "./api/networks.ts";
import type { CloudServer, HcloudServersApi } from "./api/servers.ts";
import type { NetworkRef } from "./network.ts";
import { tryParseProviderID } from "./provider-id.ts";

export interface RoutesDeps {
  readonly servers: HcloudServersApi;
  readonly networks: HcloudNetworksApi;
  readonly network: NetworkRef;
  /** The Node of a name from the shared informer, for its provider ID; absent ⇒ servers are found by name. */
  readonly node?: ((name: string) => Node | undefined) | undefined;
  readonly logger?: ConsolaInstance | undefined;
}

/** How soon a route refused for a node that does not know its private IP yet may be tried again. */
const NOT_YET_RETRY_MS = 1_000;

/** `<gateway>-<destination>`: what identifies a Hetzner route. */
export const routeName = (r: NetworkRoute): string => `${r.gateway}-${r.destination}`;

/** The route a name stands for; `undefined` for a name we did not make. */
export function parseRouteName(name: string): NetworkRoute | undefined {
  const dash = name.indexOf("-");
  if (dash <= 0) return undefined;
  const gateway = name.slice(0, dash);
  const destination = name.slice(dash + 1);
  return /^[0-9.]+$/.test(gateway) && destination.includes("/") ? { gateway, destination } : undefined;
}

/** Pure: the framework's routes from the network's routes and the servers' private IPs in it. */
export function listedRoutes(
  routes: readonly NetworkRoute[],
  servers: readonly CloudServer[],
  networkId: number,
): Route[] {
  const byIP = new Map<string, string>();
  for (const s of servers) {
    for (const p of s.privateNets) if (p.network === networkId) byIP.set(p.ip, s.name);
  }
  return routes.map((r) => {
    const target = byIP.get(r.gateway);
    return {
      name: routeName(r),
      destinationCIDR: r.destination,
      targetNode: target ?? "",
      ...(target === undefined && { blackhole: true }),
    };
  });
}

export function createRoutes(deps: RoutesDeps): Routes {
  const { servers, networks, network } = deps;

  /** The private IP of the Node's Cloud server in the network: the route's gateway. */
  async function gatewayOf(ctx: CallContext, nodeName: string, networkId: number): Promise<string> {
    const providerID = deps.node?.(nodeName)?.spec?.providerID ?? "";
    const parsed = providerID === "" ? undefined : tryParseProviderID(providerID);
    if (parsed && parsed.kind !== "cloud") {
      throw new Error(`node "${nodeName}" is a Robot server (${providerID}); routes are only for Cloud servers`);
    }
    const server = parsed
      ? await servers.getServer(ctx, parsed.id)
      : (await servers.listServers(ctx, { name: nodeName })).find((s) => s.name === nodeName);
    if (!server) throw new Error(`no Cloud server for node "${nodeName}"${providerID ? ` (${providerID})` : ""}`);
    const attached = server.privateNets.find((p) => p.network === networkId);
    if (!attached) {
      throw new Error(
        `server ${server.name} (${server.id}) is not attached to HCLOUD_NETWORK=${network.setting} (network ${networkId}); attach it, or turn routes off with HCLOUD_NETWORK_ROUTES_ENABLED=false`,
      );
    }
    return attached.ip;
  }

  return {
    async listRoutes(ctx) {
      try {
        const [current, all] = await Promise.all([network.read(ctx), servers.listServers(ctx)]);
        return listedRoutes(current.routes, all, current.id);
      } catch (err) {
        throw wrapError("hcloud/routes.listRoutes", err);
      }
    },

    async createRoute(ctx, _clusterName, _nameHint, route) {
      const op = `hcloud/routes.createRoute ${route.destinationCIDR} via node "${route.targetNode}"`;
      if (route.destinationCIDR.includes(":")) {
        throw new Error(`${op}: Hetzner private networks route IPv4 only; use native routing for IPv6 pod CIDRs`);
      }
      try {
        const id = await network.id(ctx);
        const gateway = await gatewayOf(ctx, route.targetNode, id);
        const internal = (route.targetNodeAddresses ?? []).filter((a) => a.type === "InternalIP");
        if (route.targetNodeAddresses && !internal.some((a) => a.address === gateway)) {
          // hccm's check: the Node must know its private IP, or pods would be routed where the kubelet is not. Not
          // yet rather than wrong: a node being initialised gets its addresses within moments.
          throw new RetryError(
            `the node's InternalIPs (${internal.map((a) => a.address).join(", ") || "none"}) do not include its private IP ${gateway} yet`,
            NOT_YET_RETRY_MS,
          );
        }
        const current = await network.read(ctx);
        const existing = current.routes.find((r) => r.destination === route.destinationCIDR);
        if (existing?.gateway === gateway) return;
        if (existing) {
          deps.logger?.info(`${op}: replacing the route through ${existing.gateway} with one through ${gateway}`);
          await networks.deleteRoute(ctx, id, existing);
        }
        await networks.addRoute(ctx, id, { destination: route.destinationCIDR, gateway });
      } catch (err) {
        if (err instanceof CloudApiError && err.code === "resource_limit_exceeded") {
          throw wrapError(
            `${op}: the network holds Hetzner's maximum of 100 routes; stale ones are removed by the next route sync`,
            err,
          );
        }
        throw wrapError(op, err);
      }
    },

    async deleteRoute(ctx, _clusterName, route) {
      const op = `hcloud/routes.deleteRoute ${route.name}`;
      try {
        const named = parseRouteName(route.name);
        const current = await network.read(ctx);
        const doomed = current.routes.filter(
          (r) => r.destination === route.destinationCIDR && (!named || r.gateway === named.gateway),
        );
        for (const r of doomed) await networks.deleteRoute(ctx, current.id, r);
      } catch (err) {
        throw wrapError(op, err);
      }
    },
  };
}
