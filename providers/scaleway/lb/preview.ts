/**
 * `planLoadBalancer`'s answer from what the reads found: nothing (`create`), one this manager made or adopted
 * (tagged `ccm-ts/service-uid=<uid>`: `update` or `none`), or one scw CCM made (`adopt`: tagged and kept, same ID
 * and IPs). The changes are the planner's own operations, so the preview says what `ensureLoadBalancer` would write.
 */
import type { LoadBalancerPlan } from "../../cloud.ts";
import { statusOf } from "./apply.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import { describe, type FoundLoadBalancer, type LbOperation } from "./plan.ts";

export function previewLoadBalancer(
  found: FoundLoadBalancer | undefined,
  desired: DesiredLoadBalancer,
  ops: readonly LbOperation[],
  ownerTag: string,
  /** Changes made after the operations (the frontends' access lists). */
  after: readonly string[] = [],
): LoadBalancerPlan {
  if (!found) {
    const ports = desired.ports.map((p) => `${p.frontend.inboundPort}→${p.backend.forwardPort}`).join(", ") || "none";
    const ips =
      desired.ipIds.length > 0
        ? `IPs ${desired.ipIds.join(", ")}`
        : desired.loadBalancerIP
          ? `IP ${desired.loadBalancerIP}`
          : desired.private
            ? "no public IP"
            : desired.create.ipv6
              ? "a new IPv4 and IPv6"
              : "a new IPv4";
    const acl =
      desired.aclAllow.length > 0
        ? [`set an access list on each port allowing ${desired.aclAllow.length} source(s)`]
        : [];
    return {
      action: "create",
      name: desired.name,
      changes: [
        `create ${desired.create.type} in ${desired.zone} with ${ips}, ports ${ports} and ${desired.pool?.length ?? 0} server(s)`,
        ...acl,
      ],
    };
  }
  const adopt = !desired.externallyManaged && !found.lb.tags.includes(ownerTag);
  const changes = [...(adopt ? [`tag ${ownerTag}`] : []), ...ops.map(describe), ...after];
  return {
    action: adopt ? "adopt" : changes.length > 0 ? "update" : "none",
    name: found.lb.name,
    changes,
    ...(desired.private ? {} : { status: statusOf(found.lb, desired.ingress) }),
  };
}
