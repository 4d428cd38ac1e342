/**
 * The provider's Octavia calls (catalog type `load-balancer`, `/v2/lbaas`); Neutron's floating IPs are in
 * floating-ips.ts.
 *
 * Octavia refuses every change while a load balancer is `PENDING_*` (409), so each change is followed by
 * `waitActive`: the load balancer is read again with a bounded backoff until it is `ACTIVE`. `ERROR` ends the wait
 * at once; a `PENDING_*` that outlasts the deadline ends it too (OCCM #1052 waited forever). Both throw
 * `LoadBalancerStateError`, naming the load balancer and its status, for the caller to recover or warn about.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { OpenStackService } from "./client.ts";
import type { FloatingIPApi } from "./floating-ips.ts";
import {
  type ListenerView,
  type LoadBalancerView,
  listenerSchema,
  loadBalancerSchema,
  memberSchema,
  monitorSchema,
  type OctaviaLoadBalancer,
  type PoolView,
  poolSchema,
} from "./octavia-schemas.ts";

export interface MonitorBody {
  readonly name: string;
  readonly type: string;
  readonly delay: number;
  readonly timeout: number;
  readonly max_retries: number;
  readonly max_retries_down: number;
  readonly url_path?: string;
  readonly http_method?: string;
  readonly expected_codes?: string;
}

export interface MemberBody {
  readonly name: string;
  readonly address: string;
  readonly protocol_port: number;
  readonly subnet_id?: string;
  /** kube-proxy's health check port, for an HTTP monitor with `externalTrafficPolicy: Local`. */
  readonly monitor_port?: number;
}

export interface PoolBody {
  readonly name: string;
  readonly protocol: string;
  readonly lb_algorithm: string;
  readonly session_persistence: { readonly type: string } | null;
}

export interface ListenerBody {
  readonly name: string;
  readonly protocol: string;
  readonly protocol_port: number;
  readonly connection_limit: number;
  readonly timeout_client_data?: number;
  readonly timeout_member_connect?: number;
  readonly timeout_member_data?: number;
  readonly timeout_tcp_inspect?: number;
  readonly insert_headers?: Readonly<Record<string, string>>;
  readonly allowed_cidrs?: readonly string[];
  readonly default_tls_container_ref?: string;
  readonly tags: readonly string[];
}

export interface CreateLoadBalancerBody {
  readonly name: string;
  readonly description: string;
  readonly provider: string;
  readonly tags: readonly string[];
  readonly vip_subnet_id?: string;
  readonly vip_network_id?: string;
  readonly vip_port_id?: string;
  readonly vip_address?: string;
  readonly flavor_id?: string;
  readonly availability_zone?: string;
  /** A fully populated create: each listener with its default pool, members and monitor. */
  readonly listeners?: readonly (ListenerBody & {
    readonly default_pool: PoolBody & { readonly members: readonly MemberBody[]; readonly healthmonitor?: MonitorBody };
  })[];
}

/** A load balancer in `ERROR`, or `PENDING_*` past the deadline. */
export class LoadBalancerStateError extends Error {
  override readonly name = "LoadBalancerStateError";
  constructor(
    readonly lb: Pick<OctaviaLoadBalancer, "id" | "name" | "provisioning_status">,
    readonly waitedMs: number,
  ) {
    const status = lb.provisioning_status;
    super(
      status === "ERROR"
        ? `load balancer ${lb.id} (${lb.name}) is in ERROR`
        : `load balancer ${lb.id} (${lb.name}) is still ${status} after ${Math.round(waitedMs / 1000)}s; Octavia refuses changes until it is ACTIVE`,
    );
  }
}

export interface WaitOptions {
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** How long a `PENDING_*` status is waited on, in ms. */
  readonly deadlineMs: number;
}

const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 10_000;

export class OctaviaApi {
  readonly #octavia: OpenStackService;
  readonly #fips: Pick<FloatingIPApi, "floatingIPs">;
  readonly #wait: WaitOptions;

  /** `fips` finds the floating IP on a load balancer's VIP port for `view`. */
  constructor(octavia: OpenStackService, fips: Pick<FloatingIPApi, "floatingIPs">, wait: WaitOptions) {
    this.#octavia = octavia;
    this.#fips = fips;
    this.#wait = wait;
  }

  /** The load balancers named `name` that are not being deleted. */
  async listByName(ctx: CallContext, name: string): Promise<OctaviaLoadBalancer[]> {
    const answer = await this.#octavia.request(ctx, {
      operation: "listLoadBalancers",
      method: "GET",
      path: "/lbaas/loadbalancers",
      query: { name },
      answer: v.object({ loadbalancers: v.array(loadBalancerSchema) }),
    });
    return answer.loadbalancers.filter((l) => !["DELETED", "PENDING_DELETE"].includes(l.provisioning_status));
  }

  async get(ctx: CallContext, id: string): Promise<OctaviaLoadBalancer | undefined> {
    const answer = await this.#octavia.request(ctx, {
      operation: "getLoadBalancer",
      method: "GET",
      path: `/lbaas/loadbalancers/${encodeURIComponent(id)}`,
      answer: v.object({ loadbalancer: loadBalancerSchema }),
      notFound: true,
    });
    return answer?.loadbalancer;
  }

  /** Never repeated by the client after an ambiguous failure: the next sync finds one made by its name. */
  async create(ctx: CallContext, body: CreateLoadBalancerBody): Promise<OctaviaLoadBalancer> {
    const answer = await this.#octavia.request(ctx, {
      operation: "createLoadBalancer",
      method: "POST",
      path: "/lbaas/loadbalancers",
      body: { loadbalancer: body },
      idempotent: false,
      answer: v.object({ loadbalancer: loadBalancerSchema }),
    });
    return answer.loadbalancer;
  }

  async update(ctx: CallContext, id: string, body: { tags?: readonly string[]; description?: string }) {
    await this.#change(ctx, id, "updateLoadBalancer", "PUT", `/lbaas/loadbalancers/${id}`, { loadbalancer: body });
  }

  /**
   * Deletes it, with everything under it unless `cascade` is false (then it must have no listener or pool left); a
   * load balancer already gone counts as deleted.
   */
  async delete(ctx: CallContext, id: string, cascade = true): Promise<void> {
    await this.#octavia.request(ctx, {
      operation: "deleteLoadBalancer",
      method: "DELETE",
      path: `/lbaas/loadbalancers/${encodeURIComponent(id)}`,
      query: { cascade: cascade ? true : undefined },
      answer: v.unknown(),
      notFound: true,
    });
  }

  /** The load balancer with its listeners, pools, members and monitors, and the floating IP on its VIP port. */
  async view(ctx: CallContext, lb: OctaviaLoadBalancer): Promise<LoadBalancerView> {
    const [listeners, pools] = await Promise.all([
      this.#octavia.request(ctx, {
        operation: "listListeners",
        method: "GET",
        path: "/lbaas/listeners",
        query: { loadbalancer_id: lb.id },
        answer: v.object({ listeners: v.array(listenerSchema) }),
      }),
      this.#octavia.request(ctx, {
        operation: "listPools",
        method: "GET",
        path: "/lbaas/pools",
        query: { loadbalancer_id: lb.id },
        answer: v.object({ pools: v.array(poolSchema) }),
      }),
    ]);
    const poolViews = new Map<string, PoolView>();
    for (const pool of pools.pools) {
      const members = await this.#octavia.request(ctx, {
        operation: "listMembers",
        method: "GET",
        path: `/lbaas/pools/${pool.id}/members`,
        answer: v.object({ members: v.array(memberSchema) }),
      });
      const monitor = pool.healthmonitor_id
        ? await this.#octavia.request(ctx, {
            operation: "getHealthMonitor",
            method: "GET",
            path: `/lbaas/healthmonitors/${pool.healthmonitor_id}`,
            answer: v.object({ healthmonitor: monitorSchema }),
            notFound: true,
          })
        : undefined;
      poolViews.set(pool.id, { pool, members: members.members, monitor: monitor?.healthmonitor });
    }
    const views: ListenerView[] = listeners.listeners.map((listener) => ({
      listener,
      pool: listener.default_pool_id ? poolViews.get(listener.default_pool_id) : undefined,
    }));
    const floatingIP = lb.vip_port_id ? (await this.#fips.floatingIPs(ctx, { port_id: lb.vip_port_id }))[0] : undefined;
    return { lb, listeners: views, floatingIP };
  }

  /** Reads it until `ACTIVE`, backing off from 1s to 10s; throws `LoadBalancerStateError` on ERROR or the deadline. */
  async waitActive(ctx: CallContext, id: string): Promise<OctaviaLoadBalancer> {
    const { now, sleep, deadlineMs } = this.#wait;
    const start = now();
    let pause = FIRST_WAIT_MS;
    for (;;) {
      const lb = await this.get(ctx, id);
      if (!lb) throw new Error(`load balancer ${id} disappeared while it was waited on`);
      if (lb.provisioning_status === "ACTIVE") return lb;
      const waited = now() - start;
      if (lb.provisioning_status === "ERROR" || waited >= deadlineMs) throw new LoadBalancerStateError(lb, waited);
      await sleep(Math.min(pause, Math.max(1, deadlineMs - waited)), ctx.signal);
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error("aborted");
      pause = Math.min(pause * 2, MAX_WAIT_MS);
    }
  }

  /** Reads it until Octavia no longer has it, with the same backoff and deadline as `waitActive`. */
  async waitGone(ctx: CallContext, id: string): Promise<void> {
    const { now, sleep, deadlineMs } = this.#wait;
    const start = now();
    let pause = FIRST_WAIT_MS;
    for (;;) {
      const lb = await this.get(ctx, id);
      if (!lb || lb.provisioning_status === "DELETED") return;
      const waited = now() - start;
      if (waited >= deadlineMs) throw new LoadBalancerStateError(lb, waited);
      await sleep(Math.min(pause, Math.max(1, deadlineMs - waited)), ctx.signal);
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error("aborted");
      pause = Math.min(pause * 2, MAX_WAIT_MS);
    }
  }

  createListener(ctx: CallContext, lbID: string, body: ListenerBody) {
    return this.#change(ctx, lbID, "createListener", "POST", "/lbaas/listeners", {
      listener: { ...body, loadbalancer_id: lbID },
    });
  }

  updateListener(ctx: CallContext, lbID: string, id: string, body: Partial<ListenerBody>) {
    return this.#change(ctx, lbID, "updateListener", "PUT", `/lbaas/listeners/${id}`, { listener: body });
  }

  deleteListener(ctx: CallContext, lbID: string, id: string) {
    return this.#change(ctx, lbID, "deleteListener", "DELETE", `/lbaas/listeners/${id}`);
  }

  createPool(ctx: CallContext, lbID: string, listenerID: string, body: PoolBody) {
    return this.#change(ctx, lbID, "createPool", "POST", "/lbaas/pools", {
      pool: { ...body, listener_id: listenerID },
    });
  }

  updatePool(ctx: CallContext, lbID: string, id: string, body: Partial<PoolBody>) {
    return this.#change(ctx, lbID, "updatePool", "PUT", `/lbaas/pools/${id}`, { pool: body });
  }

  deletePool(ctx: CallContext, lbID: string, id: string) {
    return this.#change(ctx, lbID, "deletePool", "DELETE", `/lbaas/pools/${id}`);
  }

  /** Octavia's batch member update: the pool's members become exactly `members`. */
  replaceMembers(ctx: CallContext, lbID: string, poolID: string, members: readonly MemberBody[]) {
    return this.#change(ctx, lbID, "replaceMembers", "PUT", `/lbaas/pools/${poolID}/members`, { members });
  }

  createMonitor(ctx: CallContext, lbID: string, poolID: string, body: MonitorBody) {
    return this.#change(ctx, lbID, "createHealthMonitor", "POST", "/lbaas/healthmonitors", {
      healthmonitor: { ...body, pool_id: poolID },
    });
  }

  updateMonitor(ctx: CallContext, lbID: string, id: string, body: Partial<Omit<MonitorBody, "type">>) {
    return this.#change(ctx, lbID, "updateHealthMonitor", "PUT", `/lbaas/healthmonitors/${id}`, {
      healthmonitor: body,
    });
  }

  deleteMonitor(ctx: CallContext, lbID: string, id: string) {
    return this.#change(ctx, lbID, "deleteHealthMonitor", "DELETE", `/lbaas/healthmonitors/${id}`);
  }

  /** One change to the load balancer `lbID` or a child, then the wait for it to be `ACTIVE` again. */
  async #change(
    ctx: CallContext,
    lbID: string,
    operation: string,
    method: "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ) {
    const send = () =>
      this.#octavia.request(ctx, {
        operation,
        method,
        path,
        ...(body === undefined ? {} : { body }),
        answer: v.unknown(),
        ...(method === "DELETE" ? { notFound: true } : {}),
      });
    try {
      await send();
    } catch (err) {
      // Immutable while another change settles (someone else's, or ours whose answer was lost): wait, then once more.
      if (!(err instanceof CloudApiError && err.status === 409)) throw err;
      await this.waitActive(ctx, lbID);
      await send();
    }
    return this.waitActive(ctx, lbID);
  }
}
