/**
 * The floating IP on a load balancer's VIP port (OCCM's `ensureFloatingIP` and `deleteFIPIfCreatedByProvider`):
 *
 * - one already on the VIP port is kept (an adopted OCCM load balancer keeps its address);
 * - else the one the caller kept (a rebuilt load balancer's), else `spec.loadBalancerIP` if it is a free floating IP,
 *   else a free one carrying this Service's description (made by an earlier sync whose answer was lost, or kept by
 *   `keep-floatingip`), is bound to the port;
 * - else one is made on the floating network (on its subnet by ID, or each subnet matching `floating-subnet` and
 *   `floating-subnet-tags` tried in turn), bound to the port, with OCCM's description so either manager knows it;
 * - an internal Service's floating IP is taken off, and deleted when made by a manager and not kept.
 *
 * Only a floating IP whose description carries OCCM's mark is ever deleted: a user's own is detached at most.
 */
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { FloatingIPApi } from "../api/floating-ips.ts";
import type { FloatingIP, OctaviaLoadBalancer } from "../api/octavia-schemas.ts";
import { type DesiredLoadBalancer, FLOATING_IP_MARK } from "./desired.ts";
import { matchingSubnets } from "./subnet-match.ts";

export type FloatingIPCalls = Pick<
  FloatingIPApi,
  "floatingIPs" | "createFloatingIP" | "bindFloatingIP" | "deleteFloatingIP" | "subnets"
>;

export const madeByManager = (fip: Pick<FloatingIP, "description">) =>
  (fip.description ?? "").includes(FLOATING_IP_MARK);

export async function ensureFloatingIP(
  ctx: CallContext,
  api: FloatingIPCalls,
  lb: Pick<OctaviaLoadBalancer, "id" | "vip_port_id">,
  current: FloatingIP | undefined,
  desired: DesiredLoadBalancer,
  kept?: FloatingIP,
): Promise<FloatingIP | undefined> {
  if (desired.internal) {
    if (current) await releaseFloatingIP(ctx, api, current, desired.keepFloatingIP);
    return undefined;
  }
  if (current) return current;
  const want = desired.floating;
  if (!want) return undefined;
  const port = lb.vip_port_id;
  const bind = async (fip: FloatingIP) => {
    await api.bindFloatingIP(ctx, fip.id, port);
    return { ...fip, port_id: port };
  };
  if (kept) return bind(kept);
  if (want.address !== undefined) {
    const [named] = await api.floatingIPs(ctx, { floating_ip_address: want.address });
    if (named) {
      if (named.port_id) {
        throw new Error(
          `spec.loadBalancerIP ${want.address} is a floating IP bound to port ${named.port_id}; detach it or choose another`,
        );
      }
      return bind(named);
    }
  }
  const free = (await api.floatingIPs(ctx, { description: desired.floatingDescription })).find((f) => !f.port_id);
  if (free) return bind(free);
  const body = {
    floating_network_id: want.networkID,
    port_id: port,
    description: desired.floatingDescription,
    ...(want.address === undefined ? {} : { floating_ip_address: want.address }),
  };
  const byMatch = want.address === undefined && (want.subnetPattern !== undefined || want.subnetTags !== undefined);
  if (!byMatch)
    return api.createFloatingIP(ctx, { ...body, ...(want.subnetID === undefined ? {} : { subnet_id: want.subnetID }) });
  // OCCM tries each matching subnet in turn: one may be full.
  const candidates = matchingSubnets(await api.subnets(ctx, want.networkID), want.subnetPattern, want.subnetTags);
  const spec = [want.subnetPattern && `pattern ${want.subnetPattern}`, want.subnetTags && `tags ${want.subnetTags}`]
    .filter(Boolean)
    .join(" and ");
  if (candidates.length === 0) throw new Error(`no subnet of floating network ${want.networkID} matches ${spec}`);
  let last: unknown;
  for (const subnet of candidates) {
    try {
      return await api.createFloatingIP(ctx, { ...body, subnet_id: subnet.id });
    } catch (err) {
      if (!(err instanceof CloudApiError) || err.status >= 500 || err.status === 429) throw err;
      last = err;
    }
  }
  throw new Error(`no subnet of floating network ${want.networkID} matching ${spec} has a free address`, {
    cause: last,
  });
}

/** Deletes it when a manager made it and it is not to be kept; else detaches it. */
export async function releaseFloatingIP(
  ctx: CallContext,
  api: FloatingIPCalls,
  fip: FloatingIP,
  keep: boolean,
): Promise<"deleted" | "detached"> {
  if (!keep && madeByManager(fip)) {
    await api.deleteFloatingIP(ctx, fip.id);
    return "deleted";
  }
  await api.bindFloatingIP(ctx, fip.id, null);
  return "detached";
}
