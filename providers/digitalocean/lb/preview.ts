/**
 * `planLoadBalancer`'s answer from what the reads found: nothing (`create`), this Service's own (`update` or
 * `none`), one DO CCM made (`adopt`: tagged and kept, same ID and IP). The changes are the planner's own phrases,
 * so the preview says exactly what `ensureLoadBalancer` would write. A refusal throws, as the sync would.
 */
import type { LoadBalancerPlan } from "../../cloud.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import type { Ownership } from "./ownership.ts";
import { planUpdate } from "./plan.ts";
import { statusOf } from "./status.ts";

export function previewLoadBalancer(
  found: Exclude<Ownership, { kind: "refuse" }>,
  desired: DesiredLoadBalancer,
  /** Other things `ensureLoadBalancer` would do first (recording the ID annotation). */
  first: readonly string[] = [],
): LoadBalancerPlan {
  const b = desired.body;
  if (found.kind === "none") {
    const ports = b.forwarding_rules.map((r) => `${r.entry_protocol}:${r.entry_port}→${r.target_port}`).join(", ");
    return {
      action: "create",
      name: desired.name,
      changes: [
        `create ${b.type} ${b.network} in ${b.region} with ${ports} and ${b.droplet_ids.length} Droplet(s), tagged ${b.tags.join(", ")}`,
      ],
    };
  }
  const { changes } = planUpdate(found.lb, desired);
  const all = [
    ...(found.kind === "adopt"
      ? [
          `adopt load balancer ${found.lb.id} found by ${found.how === "id-annotation" ? "its ID annotation" : "name and this cluster's tag"}`,
        ]
      : []),
    ...first,
    ...changes,
  ];
  return {
    action: found.kind === "adopt" ? "adopt" : all.length > 0 ? "update" : "none",
    name: found.lb.name,
    changes: all,
    ...(found.lb.ip ? { status: statusOf(found.lb, desired) } : {}),
  };
}
