/**
 * One planned pass of every enabled controller over the cluster as listed and the cloud as read: which controllers
 * would start (the same rules as their runners), then each one's planner in the manager's order. Only reads reach the
 * provider (`planLoadBalancer`, never `ensureLoadBalancer`); nothing here writes to the Kubernetes API.
 */

import type { Node, Service } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import type { ControllerName } from "../names.ts";
import { cloudNodeUnsupported } from "../node/metadata.ts";
import { cloudAllocatorProblem } from "../node-ipam/cloud-allocator.ts";
import { CidrAllocatorTypes } from "../node-ipam/config.ts";
import { NodeIpamDeclines } from "../node-ipam/controller.ts";
import { lifecycleUnsupported } from "../nodelifecycle/cloud.ts";
import { RouteDeclines } from "../route/controller.ts";
import { NO_LOAD_BALANCERS } from "../service/controller.ts";
import { type ControllerVerdict, type Plan, PlanBuilder } from "./model.ts";
import { planCloudNodes, planLifecycle } from "./nodes.ts";
import { planRouteReconcile } from "./routes.ts";
import { planServices } from "./services.ts";

export interface PlanInput {
  readonly provider: CloudProvider;
  /** The enabled controllers (`enabledControllers(--controllers)`). */
  readonly controllers: readonly ControllerName[];
  readonly nodes: readonly Node[];
  readonly services: readonly Service[];
  readonly options: {
    readonly clusterName: string;
    readonly clusterCIDR: string;
    readonly configureCloudRoutes: boolean;
    /** Absent: false, as the flag's default. */
    readonly allocateNodeCIDRs?: boolean;
    readonly cidrAllocatorType?: string;
  };
  readonly ctx: CallContext;
  /** For the condition times the route controller would write. */
  readonly now: () => number;
}

/** Why `name` would not start on this provider with these options, or `undefined` when it would. */
export function declineReason(
  name: ControllerName,
  input: Pick<PlanInput, "provider" | "options">,
): string | undefined {
  const { provider, options } = input;
  switch (name) {
    case "cloud-node-controller":
      return cloudNodeUnsupported(provider);
    case "cloud-node-lifecycle-controller":
      return lifecycleUnsupported(provider);
    case "service-lb-controller":
      return provider.loadBalancer ? undefined : NO_LOAD_BALANCERS;
    case "node-route-controller":
      if (!options.configureCloudRoutes) return RouteDeclines.notConfigured;
      if (!provider.routes) return RouteDeclines.noRoutes;
      return options.clusterCIDR.trim() === "" ? RouteDeclines.noClusterCIDR : undefined;
    case "node-ipam-controller":
      if (!options.allocateNodeCIDRs) return NodeIpamDeclines.notAllocating;
      return options.cidrAllocatorType === CidrAllocatorTypes.cloud ? cloudAllocatorProblem(provider) : undefined;
  }
}

export async function gatherPlan(input: PlanInput): Promise<Plan> {
  const { provider, ctx } = input;
  const verdicts: ControllerVerdict[] = input.controllers.map((name) => {
    const reason = declineReason(name, input);
    return reason === undefined ? { name, runs: true } : { name, runs: false, reason };
  });
  const runs = (name: ControllerName) => verdicts.some((v) => v.name === name && v.runs);
  const builders: PlanBuilder[] = [];
  const builder = (name: ControllerName) => {
    const b = new PlanBuilder(name);
    builders.push(b);
    return b;
  };

  let nodesAfter: readonly Node[] = input.nodes;
  if (runs("cloud-node-controller")) {
    const b = builder("cloud-node-controller");
    nodesAfter = (await guard(b, () => planCloudNodes(b, provider, ctx, input.nodes))) ?? input.nodes;
  }
  if (runs("cloud-node-lifecycle-controller")) {
    const b = builder("cloud-node-lifecycle-controller");
    await guard(b, () => planLifecycle(b, provider, ctx, input.nodes));
  }
  if (runs("service-lb-controller") && provider.loadBalancer) {
    const b = builder("service-lb-controller");
    const loadBalancer = provider.loadBalancer;
    await guard(b, () =>
      planServices(b, {
        loadBalancer,
        clusterName: input.options.clusterName,
        ctx,
        services: input.services,
        nodes: nodesAfter,
        providerIDsSet: providerIDsSet(input.nodes, nodesAfter),
      }),
    );
  }
  if (runs("node-route-controller") && provider.routes) {
    const b = builder("node-route-controller");
    const routes = provider.routes;
    await guard(b, () =>
      planRouteReconcile(b, {
        routes,
        clusterName: input.options.clusterName,
        clusterCIDR: input.options.clusterCIDR,
        ctx,
        nodes: input.nodes,
        now: input.now,
      }),
    );
  }
  return {
    controllers: verdicts,
    writes: builders.flatMap((b) => b.writes),
    notes: builders.flatMap((b) => b.notes),
    problems: builders.flatMap((b) => b.problems),
  };
}

/** A planner that throws (a failed listing) is one problem of its controller; the others still plan. */
async function guard<T>(b: PlanBuilder, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    b.problem(undefined, err);
    return undefined;
  }
}

/** Names of the nodes whose provider ID is empty in `before` and set in `after`. */
function providerIDsSet(before: readonly Node[], after: readonly Node[]): string[] {
  const had = new Map(before.map((n) => [n.metadata?.name ?? "", n.spec?.providerID ?? ""]));
  return after
    .filter((n) => (n.spec?.providerID ?? "") !== "" && had.get(n.metadata?.name ?? "") === "")
    .map((n) => n.metadata?.name ?? "");
}
