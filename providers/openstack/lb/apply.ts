/**
 * The thin runner: performs `plan.ts`'s operations one after another through `OctaviaApi`, each followed by the wait
 * for the load balancer to be `ACTIVE` again (Octavia takes one change at a time), and says what the status is.
 */
import type { LoadBalancerIngress, LoadBalancerStatus } from "../../../kube/objects.ts";
import type { CallContext } from "../../cloud.ts";
import type { OctaviaApi } from "../api/octavia.ts";
import type { FloatingIP, OctaviaLoadBalancer } from "../api/octavia-schemas.ts";
import type { DesiredListener, DesiredLoadBalancer } from "./desired.ts";
import type { Operation } from "./plan.ts";

export type OctaviaWrites = Pick<
  OctaviaApi,
  | "update"
  | "createListener"
  | "updateListener"
  | "deleteListener"
  | "createPool"
  | "updatePool"
  | "deletePool"
  | "replaceMembers"
  | "createMonitor"
  | "updateMonitor"
  | "deleteMonitor"
  | "view"
  | "get"
>;

export async function applyOperations(
  ctx: CallContext,
  api: OctaviaWrites,
  lbID: string,
  ops: readonly Operation[],
): Promise<void> {
  for (const op of ops) await perform(ctx, api, lbID, op);
}

async function perform(ctx: CallContext, api: OctaviaWrites, lbID: string, op: Operation): Promise<void> {
  switch (op.op) {
    case "setTags":
      await api.update(ctx, lbID, { tags: op.tags });
      return;
    case "deleteListener":
      if (op.poolID !== undefined) await api.deletePool(ctx, lbID, op.poolID);
      await api.deleteListener(ctx, lbID, op.id);
      return;
    case "createListener": {
      await api.createListener(ctx, lbID, op.want.listener);
      const view = await fresh(ctx, api, lbID);
      const made = view.listeners.find(
        (l) =>
          l.listener.protocol === op.want.listener.protocol &&
          l.listener.protocol_port === op.want.listener.protocol_port,
      );
      if (!made) throw new Error(`listener ${op.want.key} was created but is not listed on load balancer ${lbID}`);
      await createPool(ctx, api, lbID, made.listener.id, op.want);
      return;
    }
    case "updateListener":
      await api.updateListener(ctx, lbID, op.id, op.change);
      return;
    case "createPool":
      await createPool(ctx, api, lbID, op.listenerID, op.want);
      return;
    case "deletePool":
      await api.deletePool(ctx, lbID, op.id);
      return;
    case "updatePool":
      await api.updatePool(ctx, lbID, op.id, op.change);
      return;
    case "replaceMembers":
      await api.replaceMembers(ctx, lbID, op.poolID, op.members);
      return;
    case "createMonitor":
      await api.createMonitor(ctx, lbID, op.poolID, op.monitor);
      return;
    case "updateMonitor":
      await api.updateMonitor(ctx, lbID, op.id, op.change);
      return;
    case "deleteMonitor":
      await api.deleteMonitor(ctx, lbID, op.id);
      return;
  }
}

async function fresh(ctx: CallContext, api: OctaviaWrites, lbID: string) {
  const lb = await api.get(ctx, lbID);
  if (!lb) throw new Error(`load balancer ${lbID} disappeared while it was being changed`);
  return api.view(ctx, lb);
}

/** A pool for the listener, then its members and monitor: the step-by-step form of a fully populated create. */
export async function createPool(
  ctx: CallContext,
  api: OctaviaWrites,
  lbID: string,
  listenerID: string,
  want: DesiredListener,
): Promise<void> {
  await api.createPool(ctx, lbID, listenerID, want.pool);
  const view = await fresh(ctx, api, lbID);
  const pool = view.listeners.find((l) => l.listener.id === listenerID)?.pool;
  if (!pool)
    throw new Error(`the pool of listener ${listenerID} was created but is not listed on load balancer ${lbID}`);
  if (want.members.length > 0) await api.replaceMembers(ctx, lbID, pool.pool.id, want.members);
  if (want.monitor) await api.createMonitor(ctx, lbID, pool.pool.id, want.monitor);
}

/**
 * The Service's status (OCCM's `createLoadBalancerStatus`): the hostname annotation alone when set; else the
 * floating IP, or the VIP without one. With the PROXY protocol the address says `ipMode: Proxy`, or with
 * `enable-ingress-hostname` becomes `<address>.<suffix>`, so in-cluster clients go through the load balancer.
 */
export function statusOf(
  lb: Pick<OctaviaLoadBalancer, "vip_address">,
  floatingIP: Pick<FloatingIP, "floating_ip_address"> | undefined,
  desired: Pick<DesiredLoadBalancer, "hostname" | "proxyProtocol" | "ingressHostnameSuffix">,
): LoadBalancerStatus {
  if (desired.hostname !== undefined) return { ingress: [{ hostname: desired.hostname }] };
  const address = floatingIP?.floating_ip_address ?? lb.vip_address;
  if (desired.ingressHostnameSuffix !== undefined) {
    return { ingress: [{ hostname: `${address}.${desired.ingressHostnameSuffix}` }] };
  }
  const entry: LoadBalancerIngress = { ip: address, ...(desired.proxyProtocol ? { ipMode: "Proxy" } : {}) };
  return { ingress: [entry] };
}
