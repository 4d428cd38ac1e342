/**
 * Which load balancer is a Service's (scaleway/loadbalancers.go `fetchLoadBalancer`, `getLoadBalancerStaticIPIDs`):
 * the one the `scw-loadbalancer-id` annotation names, else the one with the Service's name; and the flexible IPs
 * the Service chose. A load balancer the annotation names that a cloud controller manager made for another Service
 * (scw CCM's tag, another name) is refused: it is never changed or deleted.
 */
import type { CallContext } from "../../cloud.ts";
import type { ScwLoadBalancer } from "../api/lb-schemas.ts";
import type { LoadBalancersApi } from "../api/load-balancers.ts";
import { type DesiredLoadBalancer, type LoadBalancerIdentity, LoadBalancerSpecError, MANAGED_TAG } from "./desired.ts";

export function loadBalancerLookup(api: LoadBalancersApi) {
  /** The Service's load balancer: by the ID annotation, else by name; `undefined` when there is none. */
  async function find(ctx: CallContext, desired: LoadBalancerIdentity): Promise<ScwLoadBalancer | undefined> {
    if (desired.ref) {
      const lb = await api.getLoadBalancer(ctx, desired.ref.zone, desired.ref.id);
      if (lb && lb.name !== desired.name && lb.tags.includes(MANAGED_TAG)) {
        throw new LoadBalancerSpecError(
          `load balancer ${lb.zone}/${lb.id} (${lb.name}) named by service.beta.kubernetes.io/scw-loadbalancer-id was made by a cloud controller manager for another Service (this one's is named ${desired.name}); it is left alone: remove the annotation, or point it at a load balancer made for sharing`,
        );
      }
      if (lb || desired.externallyManaged) {
        if (!lb)
          throw new LoadBalancerSpecError(
            `externally managed load balancer ${desired.ref.zone}/${desired.ref.id} does not exist`,
          );
        return lb;
      }
    }
    const named = (await api.listLoadBalancers(ctx, desired.zone, desired.name)).filter(
      (lb) => lb.name === desired.name,
    );
    if (named.length > 1) {
      throw new Error(
        `load balancers ${named.map((l) => `${l.zone}/${l.id}`).join(", ")} are all named ${desired.name}; delete all but one in the Scaleway console`,
      );
    }
    return named[0];
  }

  /** The flexible IPs the Service chose (`ip-ids`, else `spec.loadBalancerIP`'s), or `[]` for new ones. */
  async function staticIpIds(
    ctx: CallContext,
    desired: DesiredLoadBalancer,
    lbId?: string,
  ): Promise<readonly string[]> {
    if (desired.ipIds.length > 0 || !desired.loadBalancerIP) return desired.ipIds;
    const [ip] = await api.listIpsByAddress(ctx, desired.zone, desired.loadBalancerIP);
    if (!ip) {
      throw new LoadBalancerSpecError(
        `spec.loadBalancerIP ${desired.loadBalancerIP} is no flexible IP of the Load Balancer API in ${desired.zone}; reserve it there first`,
      );
    }
    if (ip.lbId !== "" && ip.lbId !== lbId) {
      throw new LoadBalancerSpecError(
        `spec.loadBalancerIP ${desired.loadBalancerIP} is used by load balancer ${ip.lbId}`,
      );
    }
    return [ip.id];
  }

  return { find, staticIpIds };
}
