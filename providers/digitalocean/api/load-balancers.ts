/**
 * The load balancers the provider reads and writes (`/v2/load_balancers`).
 * Answers are read with schemas that ask only for what the provider uses: unknown fields are ignored, a missing
 * optional one takes the API's default. An update is a whole `PUT` body, as the API wants (and godo sends).
 *
 * `tags` is not in DigitalOcean's API document, but godo sends it and the API keeps it: DO CCM tags its load
 * balancers `k8s:<DO_CLUSTER_ID>`, and the provider's ownership rests on that tag (see `../lb/ownership.ts`).
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";

const forwardingRuleSchema = v.object({
  entry_protocol: v.string(),
  entry_port: v.number(),
  target_protocol: v.string(),
  target_port: v.number(),
  certificate_id: v.optional(v.nullable(v.string()), ""),
  tls_passthrough: v.optional(v.nullable(v.boolean()), false),
});

const healthCheckSchema = v.object({
  protocol: v.optional(v.string(), "http"),
  port: v.optional(v.number(), 80),
  path: v.optional(v.nullable(v.string()), ""),
  check_interval_seconds: v.optional(v.number(), 10),
  response_timeout_seconds: v.optional(v.number(), 5),
  unhealthy_threshold: v.optional(v.number(), 5),
  healthy_threshold: v.optional(v.number(), 3),
});

const stickySchema = v.object({
  type: v.optional(v.string(), "none"),
  cookie_name: v.optional(v.nullable(v.string())),
  cookie_ttl_seconds: v.optional(v.nullable(v.number())),
});

const strings = v.optional(v.nullable(v.array(v.string())), []);

export const loadBalancerSchema = v.object({
  id: v.pipe(v.string(), v.nonEmpty()),
  name: v.string(),
  ip: v.optional(v.nullable(v.string()), ""),
  ipv6: v.optional(v.nullable(v.string()), ""),
  status: v.optional(v.string(), "new"),
  size_unit: v.optional(v.nullable(v.number())),
  size: v.optional(v.nullable(v.string())),
  type: v.optional(v.nullable(v.string()), "REGIONAL"),
  network: v.optional(v.nullable(v.string()), "EXTERNAL"),
  network_stack: v.optional(v.nullable(v.string()), "IPV4"),
  region: v.optional(v.nullable(v.object({ slug: v.string() }))),
  forwarding_rules: v.optional(v.nullable(v.array(forwardingRuleSchema)), []),
  health_check: v.optional(v.nullable(healthCheckSchema)),
  sticky_sessions: v.optional(v.nullable(stickySchema)),
  redirect_http_to_https: v.optional(v.nullable(v.boolean()), false),
  enable_proxy_protocol: v.optional(v.nullable(v.boolean()), false),
  enable_backend_keepalive: v.optional(v.nullable(v.boolean()), false),
  http_idle_timeout_seconds: v.optional(v.nullable(v.number())),
  disable_lets_encrypt_dns_records: v.optional(v.nullable(v.boolean()), false),
  firewall: v.optional(v.nullable(v.object({ allow: strings, deny: strings }))),
  vpc_uuid: v.optional(v.nullable(v.string()), ""),
  tag: v.optional(v.nullable(v.string()), ""),
  tags: strings,
  droplet_ids: v.optional(v.nullable(v.array(v.number())), []),
});

/** A load balancer as the API answers it (nullable fields as the schema left them). */
export type CloudLoadBalancer = v.InferOutput<typeof loadBalancerSchema>;

export interface ForwardingRule {
  readonly entry_protocol: string;
  readonly entry_port: number;
  readonly target_protocol: string;
  readonly target_port: number;
  readonly certificate_id?: string;
  readonly tls_passthrough?: boolean;
}

export interface HealthCheck {
  readonly protocol: string;
  readonly port: number;
  readonly path: string;
  readonly check_interval_seconds: number;
  readonly response_timeout_seconds: number;
  readonly unhealthy_threshold: number;
  readonly healthy_threshold: number;
  /** Whether the check itself speaks PROXY; DO CCM says `false` unless the check is overridden. */
  readonly proxy_protocol?: boolean;
}

export interface StickySessions {
  readonly type: "none" | "cookies";
  readonly cookie_name?: string;
  readonly cookie_ttl_seconds?: number;
}

/** A create or update body (godo's `LoadBalancerRequest`, the fields DO CCM sends). */
export interface LoadBalancerBody {
  readonly name: string;
  readonly region: string;
  readonly size?: string;
  readonly size_unit?: number;
  readonly type: string;
  readonly network: string;
  readonly network_stack: string;
  readonly algorithm: string;
  readonly forwarding_rules: readonly ForwardingRule[];
  readonly health_check: HealthCheck;
  readonly sticky_sessions: StickySessions;
  readonly redirect_http_to_https: boolean;
  readonly enable_proxy_protocol: boolean;
  readonly enable_backend_keepalive: boolean;
  readonly disable_lets_encrypt_dns_records: boolean;
  readonly http_idle_timeout_seconds?: number;
  readonly firewall: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  readonly vpc_uuid?: string;
  readonly vpc_subnet_uuid?: string;
  /** BYOIP address; create only. */
  readonly ip?: string;
  readonly tags: readonly string[];
  readonly droplet_ids: readonly number[];
}

export interface LoadBalancersApi {
  /** Every load balancer of the account, in pages of 200. */
  list(ctx: CallContext): Promise<CloudLoadBalancer[]>;
  /** One by ID, or `undefined` when the API answers 404. */
  get(ctx: CallContext, id: string): Promise<CloudLoadBalancer | undefined>;
  /** Never retried blindly by the client: a create whose answer was lost is found by its tags next time. */
  create(ctx: CallContext, body: LoadBalancerBody): Promise<CloudLoadBalancer>;
  update(ctx: CallContext, id: string, body: LoadBalancerBody): Promise<CloudLoadBalancer>;
  /** `false` when it was already gone (404). */
  delete(ctx: CallContext, id: string): Promise<boolean>;
}

const one = v.object({ load_balancer: loadBalancerSchema });

export class HttpLoadBalancersApi implements LoadBalancersApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  list(ctx: CallContext): Promise<CloudLoadBalancer[]> {
    return listAll(this.#client, ctx, {
      operation: "listLoadBalancers",
      path: "/load_balancers",
      key: "load_balancers",
      item: loadBalancerSchema,
    });
  }

  async get(ctx: CallContext, id: string): Promise<CloudLoadBalancer | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "getLoadBalancer",
      method: "GET",
      path: `/load_balancers/${encodeURIComponent(id)}`,
      answer: one,
      notFound: true,
    });
    return answer?.load_balancer;
  }

  async create(ctx: CallContext, body: LoadBalancerBody): Promise<CloudLoadBalancer> {
    const answer = await this.#client.request(ctx, {
      operation: "createLoadBalancer",
      method: "POST",
      path: "/load_balancers",
      body,
      answer: one,
    });
    return answer.load_balancer;
  }

  async update(ctx: CallContext, id: string, body: LoadBalancerBody): Promise<CloudLoadBalancer> {
    const answer = await this.#client.request(ctx, {
      operation: "updateLoadBalancer",
      method: "PUT",
      path: `/load_balancers/${encodeURIComponent(id)}`,
      body,
      answer: one,
    });
    return answer.load_balancer;
  }

  async delete(ctx: CallContext, id: string): Promise<boolean> {
    const answer = await this.#client.request(ctx, {
      operation: "deleteLoadBalancer",
      method: "DELETE",
      path: `/load_balancers/${encodeURIComponent(id)}`,
      answer: v.unknown(),
      notFound: true,
    });
    return answer !== undefined;
  }
}
