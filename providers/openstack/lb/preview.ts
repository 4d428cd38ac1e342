/**
 * `planLoadBalancer`'s answer from what the reads found: nothing (`create`), one carrying this Service's UID tag
 * (`update` or `none`), or one without a UID tag, OCCM's (`adopt`: tagged and kept, same ID, VIP and floating IP).
 * The changes are the planner's own operations, so the preview says what `ensureLoadBalancer` would write.
 */
import type { LoadBalancerPlan } from "../../cloud.ts";
import type { LoadBalancerView } from "../api/octavia-schemas.ts";
import { statusOf } from "./apply.ts";
import { type DesiredLoadBalancer, ownerTag } from "./desired.ts";
import { describe, type Operation } from "./plan.ts";

export function previewLoadBalancer(
  view: LoadBalancerView | undefined,
  desired: DesiredLoadBalancer,
  ops: readonly Operation[],
): LoadBalancerPlan {
  const floating = desired.floating;
  if (!view) {
    const ports = desired.listeners.map((l) => l.key).join(", ");
    return {
      action: "create",
      name: desired.name,
      changes: [
        `create ${desired.provider} load balancer with listeners ${ports} and ${desired.listeners[0]?.members.length ?? 0} member(s) each`,
        ...(floating ? [`create a floating IP on network ${floating.networkID}`] : []),
      ],
    };
  }
  const changes: string[] = [];
  if (view.lb.provisioning_status === "ERROR") changes.push(`delete and make again (it is in ERROR)`);
  changes.push(...ops.map(describe));
  const needsFloating = !desired.internal && floating !== undefined && !view.floatingIP;
  if (needsFloating) changes.push(`bind a floating IP from network ${floating.networkID}`);
  if (desired.internal && view.floatingIP) changes.push(`take floating IP ${view.floatingIP.floating_ip_address} off`);
  const adopt = !(view.lb.tags ?? []).includes(ownerTag(desired.uid));
  const known = !needsFloating && view.lb.provisioning_status !== "ERROR";
  const fip = desired.internal ? undefined : view.floatingIP;
  return {
    action: adopt ? "adopt" : changes.length > 0 ? "update" : "none",
    name: view.lb.name,
    changes,
    ...(known ? { status: statusOf(view.lb, fip, desired) } : {}),
  };
}
