/**
 * The provider's Neutron calls for load balancers (Networking API v2.0): floating IPs, found by port, address or
 * description, made, bound and deleted; and a network's subnets with their names and tags.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { OpenStackService } from "./client.ts";
import { type FloatingIP, floatingIPSchema } from "./octavia-schemas.ts";

export class FloatingIPApi {
  readonly #neutron: OpenStackService;

  constructor(neutron: OpenStackService) {
    this.#neutron = neutron;
  }

  /** Whether Neutron has a subnet of this ID (for `doctor`'s check of the configured IDs). */
  async subnetExists(ctx: CallContext, id: string): Promise<boolean> {
    const answer = await this.#neutron.request(ctx, {
      operation: "getSubnet",
      method: "GET",
      path: `/subnets/${encodeURIComponent(id)}`,
      answer: v.object({ subnet: v.object({ id: v.string() }) }),
      notFound: true,
    });
    return answer !== undefined;
  }

  /** The subnets of a network, with their names and tags (for `floating-subnet` and `floating-subnet-tags`). */
  async subnets(ctx: CallContext, networkID: string): Promise<{ id: string; name: string; tags: string[] }[]> {
    const answer = await this.#neutron.request(ctx, {
      operation: "listSubnets",
      method: "GET",
      path: "/subnets",
      query: { network_id: networkID },
      answer: v.object({
        subnets: v.array(
          v.object({
            id: v.string(),
            name: v.optional(v.string(), ""),
            tags: v.optional(v.nullable(v.array(v.string())), []),
          }),
        ),
      }),
    });
    return answer.subnets.map((s) => ({ id: s.id, name: s.name, tags: s.tags ?? [] }));
  }

  async floatingIPs(ctx: CallContext, query: Record<string, string>): Promise<FloatingIP[]> {
    const answer = await this.#neutron.request(ctx, {
      operation: "listFloatingIPs",
      method: "GET",
      path: "/floatingips",
      query,
      answer: v.object({ floatingips: v.array(floatingIPSchema) }),
    });
    return answer.floatingips;
  }

  /** Not repeated blindly: a floating IP whose answer was lost is found by its description next time. */
  async createFloatingIP(
    ctx: CallContext,
    body: {
      floating_network_id: string;
      port_id: string;
      description: string;
      floating_ip_address?: string;
      subnet_id?: string;
    },
  ): Promise<FloatingIP> {
    const answer = await this.#neutron.request(ctx, {
      operation: "createFloatingIP",
      method: "POST",
      path: "/floatingips",
      body: { floatingip: body },
      idempotent: false,
      answer: v.object({ floatingip: floatingIPSchema }),
    });
    return answer.floatingip;
  }

  async bindFloatingIP(ctx: CallContext, id: string, portID: string | null): Promise<void> {
    await this.#neutron.request(ctx, {
      operation: "updateFloatingIP",
      method: "PUT",
      path: `/floatingips/${encodeURIComponent(id)}`,
      body: { floatingip: { port_id: portID } },
      answer: v.unknown(),
    });
  }

  async deleteFloatingIP(ctx: CallContext, id: string): Promise<void> {
    await this.#neutron.request(ctx, {
      operation: "deleteFloatingIP",
      method: "DELETE",
      path: `/floatingips/${encodeURIComponent(id)}`,
      answer: v.unknown(),
      notFound: true,
    });
  }
}
