/**
 * `planLoadBalancer`'s answer from what the reads found: nothing (`create`), one carrying the Service's label
 * (`update` or `none`), or one found by name without it (`adopt`: labelled and kept, same ID and addresses). The
 * changes are the planner's own operations, so the preview says exactly what `ensureLoadBalancer` would write.
 */
import type { LoadBalancerPlan } from "../../cloud.ts";
import type { CloudLoadBalancer } from "../api/load-balancer-schemas.ts";
import { SERVICE_UID_LABEL } from "../api/load-balancers.ts";
import { describe, statusOf } from "./apply.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import type { Operation } from "./plan.ts";

/** Operations after which the addresses in the status may differ from the load balancer's now. */
const MOVES_ADDRESSES = new Set<Operation["op"]>(["attachToNetwork", "detachFromNetwork", "setPublicInterface"]);

export function previewLoadBalancer(
  current: CloudLoadBalancer | undefined,
  desired: DesiredLoadBalancer,
  ops: readonly Operation[],
  /** Changes made before the load balancer's own (a managed certificate to create). */
  first: readonly string[] = [],
): LoadBalancerPlan {
  if (!current) {
    const c = desired.create;
    const where = c.location ?? `network zone ${c.networkZone ?? "(none set)"}`;
    const ports = desired.services.map((s) => `${s.listen_port}→${s.destination_port}`).join(", ") || "none";
    return {
      action: "create",
      name: desired.name,
      changes: [
        ...first,
        `create ${c.type} in ${where} with ports ${ports} and ${desired.targets.length} target(s)${desired.network ? `, attached to network ${desired.network.id}` : ""}`,
      ],
    };
  }
  const adopt = current.labels[SERVICE_UID_LABEL] !== desired.uid;
  const changes = [...first, ...ops.map(describe)];
  const known = !ops.some((o) => MOVES_ADDRESSES.has(o.op));
  return {
    action: adopt ? "adopt" : changes.length > 0 ? "update" : "none",
    name: current.name,
    changes,
    ...(known ? { status: statusOf(current, { ...desired.ingress, proxyProtocol: desired.proxyProtocol }) } : {}),
  };
}
