/**
 * The route controller's first reconcile, planned: the cloud's routes listed (a read), `planRoutes` for the creates
 * and deletes, and each node's `NetworkUnavailable` condition as it would be written once every create succeeded.
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext, Routes } from "../../providers/cloud.ts";
import { wrapError } from "../../providers/errors.ts";
import { parseClusterCIDRs } from "../route/cluster-cidr.ts";
import { networkUnavailableCondition, planRoutes, routesCreatedByNode } from "../route/plan.ts";
import { nodeObject, type PlanBuilder } from "./model.ts";

export interface RoutePlanInput {
  readonly routes: Routes;
  readonly clusterName: string;
  /** `--cluster-cidr`, non-empty (the controller declines otherwise). */
  readonly clusterCIDR: string;
  readonly ctx: CallContext;
  readonly nodes: readonly Node[];
  readonly now: () => number;
}

export async function planRouteReconcile(out: PlanBuilder, input: RoutePlanInput): Promise<void> {
  let cidrs: ReturnType<typeof parseClusterCIDRs>;
  try {
    cidrs = parseClusterCIDRs(input.clusterCIDR);
  } catch (err) {
    out.problem(undefined, err);
    return;
  }
  let routes: Awaited<ReturnType<Routes["listRoutes"]>>;
  try {
    routes = await input.routes.listRoutes(input.ctx, input.clusterName);
  } catch (err) {
    out.problem(undefined, wrapError("error listing routes", err));
    return;
  }
  const plan = planRoutes(input.nodes, routes, cidrs);
  for (const { route, reason } of plan.deletes) {
    out.write({ kind: "Route", name: route.destinationCIDR }, "delete", reason, [
      `delete route ${route.name} ${route.destinationCIDR}${route.targetNode ? ` → node ${route.targetNode}` : ""}`,
    ]);
  }
  for (const create of plan.creates) {
    out.write(
      { kind: "Route", name: create.route.destinationCIDR },
      "create",
      `node ${create.nodeName} has pod CIDR ${create.route.destinationCIDR} and no route for it`,
      [`create route ${create.route.destinationCIDR} → node ${create.nodeName}`],
    );
  }
  for (const { node, routesCreated } of routesCreatedByNode(plan, input.nodes, () => true)) {
    const condition = networkUnavailableCondition(node, routesCreated, input.now());
    if (!condition) continue;
    out.write(nodeObject(node.metadata?.name ?? ""), "set-condition", condition.message ?? "", [
      `condition NetworkUnavailable=${condition.status} (${condition.reason})`,
    ]);
  }
}
