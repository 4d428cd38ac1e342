/**
 * Hetzner Cloud load balancers: find one (by the `hcloud-ccm/service-uid` label hccm puts on its own, then by name),
 * create, rename or relabel, delete, and every action the provider takes on one, each followed to the end of its
 * action so the change has landed when the call returns. Bodies are the API's own (snake_case); answers are read
 * with `load-balancer-schemas.ts`.
 *
 * Writes that only change something (`update`, the actions) are safe to repeat after a lost answer: a repeated
 * action is refused with a code the caller recognises (`source_port_already_used`, `target_already_defined`,
 * `load_balancer_already_attached`) or changes nothing. `create` is not: a lost answer may have created the load
 * balancer, so it is never retried blindly; the caller looks it up by label first.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { actionAnswer, actionSchema, followAction } from "./actions.ts";
import { type HcloudTransport, listAll } from "./client.ts";
import { type CloudLBService, type CloudLoadBalancer, loadBalancerSchema } from "./load-balancer-schemas.ts";

/** The label hccm (and this provider) puts on a load balancer to say which Service owns it. */
export const SERVICE_UID_LABEL = "hcloud-ccm/service-uid";

type Protocol = CloudLBService["protocol"];

export interface HealthCheckBody {
  readonly protocol?: Protocol;
  readonly port?: number;
  readonly interval?: number;
  readonly timeout?: number;
  readonly retries?: number;
  readonly http?: {
    readonly domain?: string | null;
    readonly path?: string;
    readonly status_codes?: readonly string[];
    readonly tls?: boolean;
  };
}

/** A listener as `add_service` and `update_service` take it (durations in seconds, as the API has them). */
export interface ServiceBody {
  readonly listen_port: number;
  readonly protocol?: Protocol;
  readonly destination_port?: number;
  readonly proxyprotocol?: boolean;
  readonly http?: {
    readonly cookie_name?: string;
    readonly cookie_lifetime?: number;
    readonly certificates?: readonly number[];
    readonly redirect_http?: boolean;
    readonly sticky_sessions?: boolean;
    readonly timeout_idle?: number;
  };
  readonly health_check?: HealthCheckBody;
}

export type TargetBody =
  | { readonly type: "server"; readonly server: { readonly id: number }; readonly use_private_ip?: boolean }
  | { readonly type: "ip"; readonly ip: { readonly ip: string } };

export interface CreateLoadBalancerBody {
  readonly name: string;
  readonly load_balancer_type: string;
  /** Exactly one of `location` and `network_zone`. */
  readonly location?: string;
  readonly network_zone?: string;
  readonly algorithm?: { readonly type: string };
  readonly labels?: Readonly<Record<string, string>>;
  readonly public_interface?: boolean;
  readonly network?: number;
  /** Listeners and targets made with it, in the one action. */
  readonly services?: readonly ServiceBody[];
  readonly targets?: readonly TargetBody[];
}

const one = v.object({ load_balancer: loadBalancerSchema });
const created = v.object({ load_balancer: loadBalancerSchema, action: v.optional(v.nullable(actionSchema), null) });
const NAME = "hcloud/load-balancers";

export class HcloudLoadBalancers {
  readonly #t: HcloudTransport;

  constructor(transport: HcloudTransport) {
    this.#t = transport;
  }

  /** The load balancers whose labels match `selector` (`hcloud-ccm/service-uid=<uid>`), every page. */
  list(ctx: CallContext, selector: string): Promise<CloudLoadBalancer[]> {
    return this.#list(ctx, { label_selector: selector });
  }

  /** The load balancer owned by the Service with `uid`: the one with its label. */
  async byServiceUID(ctx: CallContext, uid: string): Promise<CloudLoadBalancer | undefined> {
    const found = await this.list(ctx, `${SERVICE_UID_LABEL}=${uid}`);
    return found[0];
  }

  /** The load balancer named `name` (names are unique in a project), or `undefined`. */
  async byName(ctx: CallContext, name: string): Promise<CloudLoadBalancer | undefined> {
    const found = await this.#list(ctx, { name });
    return found.find((lb) => lb.name === name);
  }

  async get(ctx: CallContext, id: number): Promise<CloudLoadBalancer | undefined> {
    const answer = await this.#t.client.request(ctx, {
      operation: "getLoadBalancer",
      method: "GET",
      path: `/load_balancers/${id}`,
      answer: one,
      notFound: true,
    });
    return answer?.load_balancer;
  }

  /** Creates it and waits for its creation to end; the answer is read again so it shows the finished state. */
  async create(ctx: CallContext, body: CreateLoadBalancerBody): Promise<CloudLoadBalancer> {
    const answer = await this.#t.client.request(ctx, {
      operation: "createLoadBalancer",
      method: "POST",
      path: "/load_balancers",
      body,
      answer: created,
      idempotent: false,
    });
    if (answer.action) await followAction(this.#t, ctx, answer.action, { operation: `${NAME}.create` });
    return (await this.get(ctx, answer.load_balancer.id)) ?? answer.load_balancer;
  }

  /** Renames it or replaces its labels (the API replaces them as a whole). */
  async update(
    ctx: CallContext,
    id: number,
    change: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> },
  ): Promise<CloudLoadBalancer> {
    const answer = await this.#t.client.request(ctx, {
      operation: "updateLoadBalancer",
      method: "PUT",
      path: `/load_balancers/${id}`,
      body: change,
      answer: one,
    });
    return answer.load_balancer;
  }

  /** Deletes it; one already gone is no error (a retry after a lost answer). */
  async delete(ctx: CallContext, id: number): Promise<void> {
    await this.#t.client.request(ctx, {
      operation: "deleteLoadBalancer",
      method: "DELETE",
      path: `/load_balancers/${id}`,
      answer: v.unknown(),
      notFound: true,
    });
  }

  addService = (ctx: CallContext, id: number, service: ServiceBody) =>
    this.#action(ctx, id, "addService", "add_service", service);
  updateService = (ctx: CallContext, id: number, service: ServiceBody) =>
    this.#action(ctx, id, "updateService", "update_service", service);
  deleteService = (ctx: CallContext, id: number, listenPort: number) =>
    this.#action(ctx, id, "deleteService", "delete_service", { listen_port: listenPort });
  addTarget = (ctx: CallContext, id: number, target: TargetBody) =>
    this.#action(ctx, id, "addTarget", "add_target", target);
  removeTarget = (ctx: CallContext, id: number, target: TargetBody) =>
    this.#action(ctx, id, "removeTarget", "remove_target", target);
  /** Attaches it to `network`, at `ip` or in the subnet `ipRange` when given. */
  attachToNetwork = (ctx: CallContext, id: number, o: { network: number; ip?: string; ipRange?: string }) =>
    this.#action(ctx, id, "attachToNetwork", "attach_to_network", {
      network: o.network,
      ...(o.ip === undefined ? {} : { ip: o.ip }),
      ...(o.ipRange === undefined ? {} : { ip_range: o.ipRange }),
    });
  detachFromNetwork = (ctx: CallContext, id: number, network: number) =>
    this.#action(ctx, id, "detachFromNetwork", "detach_from_network", { network });
  changeAlgorithm = (ctx: CallContext, id: number, type: string) =>
    this.#action(ctx, id, "changeAlgorithm", "change_algorithm", { type });
  changeType = (ctx: CallContext, id: number, type: string) =>
    this.#action(ctx, id, "changeType", "change_type", { load_balancer_type: type });
  /** Turns the public interface on or off. */
  setPublicInterface = (ctx: CallContext, id: number, enabled: boolean) =>
    enabled
      ? this.#action(ctx, id, "enablePublicInterface", "enable_public_interface", {})
      : this.#action(ctx, id, "disablePublicInterface", "disable_public_interface", {});
  /** Sets the reverse DNS of one of its public addresses; `null` resets it to the API's default. */
  changeDNSPtr = (ctx: CallContext, id: number, ip: string, dnsPtr: string | null) =>
    this.#action(ctx, id, "changeDNSPtr", "change_dns_ptr", { ip, dns_ptr: dnsPtr });

  #list(ctx: CallContext, query: Record<string, string>): Promise<CloudLoadBalancer[]> {
    return listAll(this.#t, ctx, {
      operation: "listLoadBalancers",
      path: "/load_balancers",
      key: "load_balancers",
      item: loadBalancerSchema,
      query,
    });
  }

  async #action(ctx: CallContext, id: number, operation: string, command: string, body: object): Promise<void> {
    const answer = await this.#t.client.request(ctx, {
      operation,
      method: "POST",
      path: `/load_balancers/${id}/actions/${command}`,
      body,
      answer: actionAnswer,
      // Each either changes the load balancer to a stated end or is refused as already done: safe to repeat.
      idempotent: true,
    });
    await followAction(this.#t, ctx, answer.action, { operation: `${NAME}.${operation}` });
  }
}
