/**
 * The firewalls the provider manages: DO CCM's public-access firewall (`/v2/firewalls`). Answers are read for the
 * fields the comparison uses (name, rules' protocol, ports, addresses and load balancer UIDs, tags); unknown fields
 * are ignored, and a missing list is empty.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";

const strings = v.optional(v.nullable(v.array(v.string())), []);
const target = v.optional(v.nullable(v.object({ addresses: strings, load_balancer_uids: strings, tags: strings })), {});
const ports = v.optional(v.string(), "0");
const inboundRule = v.object({ protocol: v.string(), ports, sources: target });
const outboundRule = v.object({ protocol: v.string(), ports, destinations: target });

const firewallSchema = v.pipe(
  v.object({
    id: v.string(),
    name: v.string(),
    status: v.optional(v.string(), ""),
    inbound_rules: v.optional(v.nullable(v.array(inboundRule)), []),
    outbound_rules: v.optional(v.nullable(v.array(outboundRule)), []),
    tags: strings,
  }),
  v.transform(
    (f): Firewall => ({
      id: f.id,
      name: f.name,
      inbound: (f.inbound_rules ?? []).map((r) => ruleOf(r.protocol, r.ports, r.sources)),
      outbound: (f.outbound_rules ?? []).map((r) => ruleOf(r.protocol, r.ports, r.destinations)),
      tags: f.tags ?? [],
    }),
  ),
);

function ruleOf(
  protocol: string,
  ports: string,
  t: { addresses?: string[] | null; load_balancer_uids?: string[] | null } | null | undefined,
): FirewallRule {
  return { protocol, ports, addresses: t?.addresses ?? [], loadBalancerUIDs: t?.load_balancer_uids ?? [] };
}

/** One rule as the provider compares it: the other kinds of sources (tags, Droplets) are not the provider's. */
export interface FirewallRule {
  /** `tcp`, `udp` or `icmp`. */
  readonly protocol: string;
  /** A port, a range, or `0` (all; the API answers `0` where a request said `all`). */
  readonly ports: string;
  readonly addresses: readonly string[];
  readonly loadBalancerUIDs: readonly string[];
}

/** What the provider asks a firewall to be. */
export interface FirewallSpec {
  readonly name: string;
  readonly inbound: readonly FirewallRule[];
  readonly outbound: readonly FirewallRule[];
  readonly tags: readonly string[];
}

export interface Firewall extends FirewallSpec {
  readonly id: string;
}

export interface FirewallsApi {
  /** Every firewall of the account, in pages of 200. */
  listFirewalls(ctx: CallContext): Promise<Firewall[]>;
  /** One firewall, or `undefined` when the API answers 404. */
  getFirewall(ctx: CallContext, id: string): Promise<Firewall | undefined>;
  createFirewall(ctx: CallContext, spec: FirewallSpec): Promise<Firewall>;
  /** Replaces the firewall's name, rules and tags; `undefined` when it is gone (404). */
  updateFirewall(ctx: CallContext, id: string, spec: FirewallSpec): Promise<Firewall | undefined>;
}

/** The request body: the API document's `firewall` with `inbound_rules` `sources` and `outbound_rules` `destinations`. */
export function firewallBody(spec: FirewallSpec): object {
  const targetOf = (r: FirewallRule) => ({
    ...(r.addresses.length > 0 && { addresses: [...r.addresses] }),
    ...(r.loadBalancerUIDs.length > 0 && { load_balancer_uids: [...r.loadBalancerUIDs] }),
  });
  return {
    name: spec.name,
    inbound_rules: spec.inbound.map((r) => ({ protocol: r.protocol, ports: r.ports, sources: targetOf(r) })),
    outbound_rules: spec.outbound.map((r) => ({ protocol: r.protocol, ports: r.ports, destinations: targetOf(r) })),
    tags: [...spec.tags],
  };
}

export class HttpFirewallsApi implements FirewallsApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  listFirewalls(ctx: CallContext): Promise<Firewall[]> {
    return listAll(this.#client, ctx, {
      operation: "listFirewalls",
      path: "/firewalls",
      key: "firewalls",
      item: firewallSchema,
    });
  }

  async getFirewall(ctx: CallContext, id: string): Promise<Firewall | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "getFirewall",
      method: "GET",
      path: `/firewalls/${encodeURIComponent(id)}`,
      answer: v.object({ firewall: firewallSchema }),
      notFound: true,
    });
    return answer?.firewall;
  }

  async createFirewall(ctx: CallContext, spec: FirewallSpec): Promise<Firewall> {
    const answer = await this.#client.request(ctx, {
      operation: "createFirewall",
      method: "POST",
      path: "/firewalls",
      body: firewallBody(spec),
      answer: v.object({ firewall: firewallSchema }),
    });
    return answer.firewall;
  }

  async updateFirewall(ctx: CallContext, id: string, spec: FirewallSpec): Promise<Firewall | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "updateFirewall",
      method: "PUT",
      path: `/firewalls/${encodeURIComponent(id)}`,
      body: firewallBody(spec),
      answer: v.object({ firewall: firewallSchema }),
      notFound: true,
      idempotent: true,
    });
    return answer?.firewall;
  }
}
