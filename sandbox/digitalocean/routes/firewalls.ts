/**
 * `/v2/firewalls`: list, create (202), get, update (200, the whole firewall again), delete (204). A body needs
 * `name` and at least one of `inbound_rules` or `outbound_rules`; every rule a `protocol` and `ports`, an inbound
 * one `sources`, an outbound one `destinations`, as the API document says. Changes apply at once: `succeeded`.
 */
import * as v from "valibot";
import { notFound, unprocessable } from "../errors.ts";
import { page } from "../listing.ts";
import type { Firewall, FirewallSpec } from "../state/firewalls.ts";
import type { World } from "../state/world.ts";
import { bodyOf, type Call, dropletId, type Endpoint, json, noContent, tagName } from "./endpoint.ts";

const target = v.object({
  addresses: v.optional(v.array(v.string())),
  droplet_ids: v.optional(v.array(dropletId)),
  load_balancer_uids: v.optional(v.array(v.string())),
  kubernetes_ids: v.optional(v.array(v.string())),
  tags: v.optional(v.array(tagName)),
});

const base = {
  protocol: v.picklist(["tcp", "udp", "icmp"]),
  ports: v.pipe(
    v.string(),
    v.regex(/^(0|all|\d{1,5}(-\d{1,5})?)$/, "must be a port, a range such as 8000-9000, or all"),
  ),
};

export const firewallBody = v.object({
  name: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9][a-zA-Z0-9.-]+$/, "must be letters, digits, '.' or '-'")),
  inbound_rules: v.nullish(v.array(v.object({ ...base, sources: target }))),
  outbound_rules: v.nullish(v.array(v.object({ ...base, destinations: target }))),
  droplet_ids: v.nullish(v.array(dropletId)),
  tags: v.nullish(v.array(tagName)),
});

function specOf(body: v.InferOutput<typeof firewallBody>): FirewallSpec {
  if (!body.inbound_rules?.length && !body.outbound_rules?.length) {
    throw unprocessable("a firewall needs at least one inbound or outbound rule");
  }
  return {
    name: body.name,
    inbound_rules: body.inbound_rules ?? [],
    outbound_rules: body.outbound_rules ?? [],
    droplet_ids: body.droplet_ids ?? [],
    tags: body.tags ?? [],
  };
}

function view(world: World, f: Firewall): object {
  return { id: f.id, status: "succeeded", created_at: world.iso(f.createdAt), pending_changes: [], ...f.spec };
}

function one(call: Call): Firewall {
  const firewall = call.world.firewalls.get(call.params.id ?? "");
  if (!firewall) throw notFound();
  return firewall;
}

export const firewallEndpoints: readonly Endpoint[] = [
  {
    method: "GET",
    route: "/firewalls",
    handle: ({ world, url }) => json(page("firewalls", [...world.firewalls.values()], url, (f) => view(world, f))),
  },
  {
    method: "POST",
    route: "/firewalls",
    handle: async (call) => {
      const firewall: Firewall = {
        id: call.world.uuid(),
        createdAt: call.world.now(),
        spec: specOf(await bodyOf(call, firewallBody)),
      };
      call.world.firewalls.set(firewall.id, firewall);
      return json({ firewall: view(call.world, firewall) }, 202);
    },
  },
  { method: "GET", route: "/firewalls/:id", handle: (call) => json({ firewall: view(call.world, one(call)) }) },
  {
    method: "PUT",
    route: "/firewalls/:id",
    handle: async (call) => {
      const firewall = one(call);
      firewall.spec = specOf(await bodyOf(call, firewallBody));
      return json({ firewall: view(call.world, firewall) });
    },
  },
  {
    method: "DELETE",
    route: "/firewalls/:id",
    handle: (call) => {
      call.world.firewalls.delete(one(call).id);
      return noContent();
    },
  },
];
