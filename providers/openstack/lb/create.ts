/**
 * Making a load balancer: one fully populated create (listeners, pools, members, monitors in one call, as OCCM does
 * unless `provider-requires-serial-api-calls`), or, when that is off or the Octavia refuses it (older ones do, OCCM
 * #1441), the bare load balancer and then each listener and pool step by step. A load balancer that lands in
 * `ERROR` is deleted again (nothing of it is worth keeping) and the error says so; the next sync makes a new one.
 */
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { CreateLoadBalancerBody, OctaviaApi } from "../api/octavia.ts";
import { LoadBalancerStateError } from "../api/octavia.ts";
import type { OctaviaLoadBalancer } from "../api/octavia-schemas.ts";
import { createPool } from "./apply.ts";
import type { DesiredLoadBalancer } from "./desired.ts";

export function createBody(desired: DesiredLoadBalancer, populated: boolean): CreateLoadBalancerBody {
  const v = desired.vip;
  return {
    name: desired.name,
    description: desired.description,
    provider: desired.provider,
    tags: desired.tags,
    ...(v.portID === undefined ? {} : { vip_port_id: v.portID }),
    ...(v.subnetID === undefined ? {} : { vip_subnet_id: v.subnetID }),
    ...(v.networkID === undefined ? {} : { vip_network_id: v.networkID }),
    ...(v.address === undefined ? {} : { vip_address: v.address }),
    ...(desired.flavorID === undefined ? {} : { flavor_id: desired.flavorID }),
    ...(desired.availabilityZone === undefined ? {} : { availability_zone: desired.availabilityZone }),
    ...(populated
      ? {
          listeners: desired.listeners.map((l) => ({
            ...l.listener,
            default_pool: {
              ...l.pool,
              members: l.members,
              ...(l.monitor === undefined ? {} : { healthmonitor: l.monitor }),
            },
          })),
        }
      : {}),
  };
}

/** A 400 that is no "try again": Octavia refused the request as a whole and made nothing. */
const refusedOutright = (err: unknown) => err instanceof CloudApiError && err.status === 400;

export async function createLoadBalancer(
  ctx: CallContext,
  api: OctaviaApi,
  desired: DesiredLoadBalancer,
  options: { readonly serial: boolean; readonly log?: (message: string) => void },
): Promise<OctaviaLoadBalancer> {
  let populated = !options.serial && desired.listeners.length > 0;
  let made: OctaviaLoadBalancer;
  try {
    made = await api.create(ctx, createBody(desired, populated));
  } catch (err) {
    if (!populated || !refusedOutright(err)) throw err;
    options.log?.(`a fully populated create was refused (${(err as Error).message}); creating step by step`);
    populated = false;
    made = await api.create(ctx, createBody(desired, false));
  }
  let lb: OctaviaLoadBalancer;
  try {
    lb = await api.waitActive(ctx, made.id);
  } catch (err) {
    if (err instanceof LoadBalancerStateError && err.lb.provisioning_status === "ERROR") {
      await api.delete(ctx, made.id);
      throw new Error(
        `load balancer ${made.id} (${made.name}) went into ERROR while being created; it was deleted and will be created again on the next sync`,
        { cause: err },
      );
    }
    throw err;
  }
  if (populated) return lb;
  for (const want of desired.listeners) {
    await api.createListener(ctx, lb.id, want.listener);
    const fresh = await api.get(ctx, lb.id);
    const view = fresh && (await api.view(ctx, fresh));
    const listener = view?.listeners.find(
      (l) => l.listener.protocol_port === want.listener.protocol_port && l.listener.protocol === want.listener.protocol,
    );
    if (!listener) throw new Error(`listener ${want.key} was created but is not listed on load balancer ${lb.id}`);
    await createPool(ctx, api, lb.id, listener.listener.id, want);
  }
  return (await api.get(ctx, lb.id)) ?? lb;
}
