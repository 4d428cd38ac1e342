/**
 * The service controller's first pass, planned: the Services it would enqueue at start (`enqueueOnAdd`), the path
 * each takes (`chooseSyncPath`), and for the ensure path what the provider's read-only `planLoadBalancer` says the
 * cloud side needs. The Events it records on every sync are listed only with a real change: a converged Service gets
 * "Ensuring"/"Ensured" Events on each start too, but nothing else, and the plan reports nothing for it.
 */
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { Finalizers } from "../../kube/well-known.ts";
import type { CallContext, LoadBalancer, LoadBalancerPlan } from "../../providers/cloud.ts";
import { ImplementedElsewhereError, isError } from "../../providers/errors.ts";
import { hasLBFinalizer, loadBalancerStatusEqual } from "../service/helpers.ts";
import { chooseSyncPath, enqueueOnAdd, type ServiceEvent, ServiceEvents, serviceKey } from "../service/plan.ts";
import { stableNodes } from "../service/predicates.ts";
import type { PlanBuilder, PlanObject } from "./model.ts";
import { eventText } from "./nodes.ts";

const FINALIZER = Finalizers.loadBalancerCleanup;

export interface ServicePlanInput {
  readonly loadBalancer: LoadBalancer;
  readonly clusterName: string;
  readonly ctx: CallContext;
  readonly services: readonly Service[];
  /** The nodes as the cloud-node controller would leave them: the load balancers converge on those. */
  readonly nodes: readonly Node[];
  /** Nodes whose provider ID the cloud-node controller would set. */
  readonly providerIDsSet?: readonly string[];
}

export async function planServices(out: PlanBuilder, input: ServicePlanInput): Promise<void> {
  for (const svc of input.services) {
    const why = enqueueOnAdd(svc, input.loadBalancer.classes);
    if (why === undefined) continue;
    await planService(out, input, svc, why);
  }
}

async function planService(out: PlanBuilder, input: ServicePlanInput, svc: Service, why: string): Promise<void> {
  const { loadBalancer: lb, clusterName, ctx } = input;
  const object: PlanObject = { kind: "Service", name: serviceKey(svc) };
  const path = chooseSyncPath(svc, lb.classes);
  if (path.op === "skip") {
    out.note(object, `left to another implementation: ${path.reason}`);
    return;
  }
  const lbObject: PlanObject = { kind: "LoadBalancer", name: lb.getLoadBalancerName(ctx, clusterName, svc) };
  const events: ServiceEvent[] = [];
  const before = out.writes.length;

  if (path.op === "delete") {
    let exists: boolean;
    try {
      exists = (await lb.getLoadBalancer(ctx, clusterName, svc)) != null;
    } catch (err) {
      out.problem(object, err);
      return;
    }
    if (exists) {
      events.push(ServiceEvents.deleting);
      out.write(lbObject, "delete", `Deleting existing load balancer for service ${object.name} (${path.reason})`, [
        `delete load balancer ${lbObject.name}`,
      ]);
    }
    if (hasLBFinalizer(svc)) out.write(object, "remove-finalizer", path.reason, [`remove finalizer ${FINALIZER}`]);
    // A Service being deleted whose last finalizer is ours is gone once it is removed: no status left to write.
    if (!gone(svc)) statusWrite(out, object, svc, {}, "the load balancer is gone");
    events.push(ServiceEvents.deleted);
  } else {
    events.push(ServiceEvents.ensuring);
    if (!hasLBFinalizer(svc)) out.write(object, "add-finalizer", why, [`add finalizer ${FINALIZER}`]);
    const hosts = stableNodes(input.nodes);
    if (hosts.length === 0) events.push(ServiceEvents.noNodes);
    if (!lb.planLoadBalancer) {
      out.note(
        object,
        "the provider cannot preview its load balancers (no planLoadBalancer): what ensuring this Service would change in the cloud is unknown",
        true,
      );
      if (out.writes.length > before)
        for (const e of events) out.write(object, "event", "recorded by the sync", [eventText(e)]);
      return;
    }
    let plan: LoadBalancerPlan;
    try {
      plan = await lb.planLoadBalancer(ctx, clusterName, svc, hosts);
    } catch (err) {
      if (isError(err, ImplementedElsewhereError)) {
        out.note(object, "the provider says another controller owns this load balancer; nothing to do");
        return;
      }
      out.problem(object, err);
      for (const e of [...events, ServiceEvents.syncFailed(err)]) {
        out.write(object, "event", "the sync would fail", [eventText(e)]);
      }
      return;
    }
    const named: PlanObject = { kind: "LoadBalancer", name: plan.name };
    if (plan.action === "create") {
      out.write(named, "create", `Service ${object.name} wants a load balancer and none exists`, plan.changes);
      out.write(object, "update-status", "a new load balancer", [
        "status.loadBalancer.ingress: the new load balancer's addresses (the cloud chooses them)",
      ]);
    } else {
      if (plan.action === "adopt") {
        out.write(named, "adopt", `found by name, made elsewhere: taken over as it is for ${object.name}`, [
          ...plan.changes,
          ...addressesKept(plan.status),
        ]);
      } else if (plan.action === "update") {
        out.write(named, "update", `Service ${object.name} wants it changed`, plan.changes);
      }
      if (plan.status) statusWrite(out, object, svc, plan.status, `load balancer ${plan.name}'s addresses`);
      else {
        out.note(
          object,
          `load balancer ${plan.name}'s addresses after these changes are the cloud's to say: the status may change`,
          true,
        );
      }
    }
    events.push(ServiceEvents.ensured);
    const ids = input.providerIDsSet ?? [];
    if (ids.length > 0) {
      out.note(
        named,
        `when nodes ${ids.join(", ")} get their provider IDs after this load balancer is ensured, the service controller re-sends its hosts (the same hosts; whether it happens depends on which write lands first)`,
      );
    }
  }
  // Events accompany a real change only (see the file comment).
  if (out.writes.length === before) return;
  for (const e of events) out.write(object, "event", "recorded by the sync", [eventText(e)]);
}

function statusWrite(out: PlanBuilder, object: PlanObject, svc: Service, next: LoadBalancerStatus, why: string): void {
  const previous = svc.status?.loadBalancer;
  if (loadBalancerStatusEqual(previous, next)) return;
  out.write(object, "update-status", why, [
    `status.loadBalancer.ingress ${ingressText(previous)} → ${ingressText(next)}`,
  ]);
}

function ingressText(status: LoadBalancerStatus | undefined): string {
  const ingress = status?.ingress ?? [];
  if (ingress.length === 0) return "[]";
  return `[${ingress.map((i) => `${i.ip ?? i.hostname ?? ""}${i.ipMode ? ` (${i.ipMode})` : ""}`).join(", ")}]`;
}

function addressesKept(status: LoadBalancerStatus | undefined): string[] {
  const ingress = status?.ingress ?? [];
  return ingress.length === 0 ? [] : [`keeps its addresses ${ingressText(status)}`];
}

/** Being deleted, and held only by our finalizer: removing it deletes the Service. */
function gone(svc: Service): boolean {
  const finalizers = svc.metadata?.finalizers ?? [];
  return svc.metadata?.deletionTimestamp !== undefined && finalizers.every((f) => f === FINALIZER);
}
