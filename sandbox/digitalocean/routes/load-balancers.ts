/**
 * `/v2/load_balancers`: list, create (202, `new`), get, update (the whole body again, as the API wants), delete,
 * and adding or removing Droplets and forwarding rules. Bodies follow the API document's required fields: a
 * create or update needs `region`, `forwarding_rules` and one of `droplet_ids` or `tag`; a rule needs its two
 * protocols and two ports. Anything else missing or wrong is 422 `unprocessable_entity`.
 */
import * as v from "valibot";
import { unprocessable } from "../errors.ts";
import { page } from "../listing.ts";
import {
  createLoadBalancer,
  type ForwardingRule,
  getLoadBalancer,
  type LoadBalancerSpec,
  listLoadBalancers,
  loadBalancerView,
} from "../state/load-balancers.ts";
import { regionSlugs } from "../state/regions.ts";
import type { World } from "../state/world.ts";
import { bodyOf, type Call, dropletId, type Endpoint, json, noContent, port, tagName } from "./endpoint.ts";

const forwardingRule = v.object({
  entry_protocol: v.picklist(["http", "https", "http2", "http3", "tcp", "udp"]),
  entry_port: port,
  target_protocol: v.picklist(["http", "https", "http2", "tcp", "udp"]),
  target_port: port,
  certificate_id: v.optional(v.string(), ""),
  tls_passthrough: v.optional(v.boolean(), false),
});

const healthCheck = v.object({
  protocol: v.optional(v.picklist(["http", "https", "tcp"]), "http"),
  port: v.optional(port, 80),
  path: v.optional(v.string(), "/"),
  check_interval_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(3), v.maxValue(300)), 10),
  response_timeout_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(3), v.maxValue(300)), 5),
  unhealthy_threshold: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(10)), 5),
  healthy_threshold: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(10)), 3),
});

const stickySessions = v.object({
  type: v.optional(v.picklist(["cookies", "none"]), "none"),
  cookie_name: v.exactOptional(v.string()),
  cookie_ttl_seconds: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const rules = v.pipe(v.array(forwardingRule), v.minLength(1, "needs at least one forwarding rule"));

export const loadBalancerBody = v.object({
  name: v.optional(v.pipe(v.string(), v.regex(/^[a-zA-Z0-9][a-zA-Z0-9.-]*$/, "must be letters, digits, '.' or '-'"))),
  region: v.picklist(regionSlugs, `must be one of ${regionSlugs.join(", ")}`),
  size_unit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 1),
  size: v.optional(v.picklist(["lb-small", "lb-medium", "lb-large"]), "lb-small"),
  algorithm: v.optional(v.picklist(["round_robin", "least_connections"]), "round_robin"),
  forwarding_rules: rules,
  health_check: v.optional(healthCheck, {}),
  sticky_sessions: v.optional(stickySessions, {}),
  redirect_http_to_https: v.optional(v.boolean(), false),
  enable_proxy_protocol: v.optional(v.boolean(), false),
  enable_backend_keepalive: v.optional(v.boolean(), false),
  http_idle_timeout_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(30), v.maxValue(600)), 60),
  disable_lets_encrypt_dns_records: v.optional(v.boolean(), false),
  network: v.optional(v.picklist(["EXTERNAL", "INTERNAL"]), "EXTERNAL"),
  network_stack: v.optional(v.picklist(["IPV4", "DUALSTACK"]), "IPV4"),
  type: v.optional(v.picklist(["REGIONAL", "REGIONAL_NETWORK", "GLOBAL"]), "REGIONAL"),
  vpc_uuid: v.optional(v.string(), "5a4981aa-9653-4bd1-bef5-d6bff52042e4"),
  project_id: v.optional(v.string(), "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30"),
  firewall: v.optional(v.object({ allow: v.optional(v.array(v.string())), deny: v.optional(v.array(v.string())) }), {}),
  tag: v.exactOptional(tagName),
  droplet_ids: v.exactOptional(v.array(dropletId)),
  // Not in the API document, but godo sends it and the API keeps it: DO CCM tags its load balancers `k8s:<cluster>`.
  tags: v.optional(v.array(tagName), []),
  // godo's `IP` (a reserved BYOIP address to create with) and `VPCSubnetUUID`: not in the API document either.
  ip: v.exactOptional(v.pipe(v.string(), v.ipv4("must be an IPv4 address"))),
  vpc_subnet_uuid: v.optional(v.string(), ""),
});

/** A checked spec: one of `droplet_ids` or `tag`, known Droplets, known certificates. */
function specOf(world: World, body: v.InferOutput<typeof loadBalancerBody>): LoadBalancerSpec {
  const { tag, droplet_ids, name, ip: _ip, ...rest } = body;
  if (tag !== undefined && droplet_ids !== undefined) {
    throw unprocessable("load balancer can't have both droplet_ids and tag");
  }
  if (tag === undefined && droplet_ids === undefined) throw unprocessable("one of droplet_ids or tag is required");
  for (const id of droplet_ids ?? []) checkDroplet(world, id);
  checkRules(world, rest.forwarding_rules);
  for (const t of rest.tags) world.tags.add(t);
  return {
    ...rest,
    tags: [...new Set(rest.tags)],
    name: name ?? `${rest.region}-lb-${world.loadBalancers.size + 1}`,
    tag: tag ?? "",
    droplet_ids: [...new Set(droplet_ids ?? [])],
  };
}

function checkDroplet(world: World, id: number): void {
  if (!world.droplets.has(id)) throw unprocessable(`droplet ${id} does not exist`);
}

function checkRules(world: World, forwarding: readonly ForwardingRule[]): void {
  for (const rule of forwarding) {
    if (rule.certificate_id !== "" && !world.certificates.has(rule.certificate_id)) {
      throw unprocessable(`certificate ${rule.certificate_id} does not exist`);
    }
    const terminates = rule.entry_protocol === "https" || rule.entry_protocol === "http2";
    if (terminates && rule.certificate_id === "" && !rule.tls_passthrough) {
      throw unprocessable(`entry protocol ${rule.entry_protocol} needs certificate_id or tls_passthrough`);
    }
  }
  // HTTP/3 runs over UDP (QUIC), so it shares its port with an https or http2 rule, as DO CCM's http3-port does.
  const udp = (r: ForwardingRule) => r.entry_protocol === "udp" || r.entry_protocol === "http3";
  const ports = forwarding.map((r) => `${udp(r) ? "udp" : "tcp"}/${r.entry_port}`);
  const twice = ports.find((p, i) => ports.indexOf(p) !== i);
  if (twice) throw unprocessable(`entry port ${twice.split("/")[1]} is used by more than one forwarding rule`);
}

const dropletsBody = v.object({ droplet_ids: v.pipe(v.array(dropletId), v.minLength(1)) });
const rulesBody = v.object({ forwarding_rules: rules });
const sameRule = (a: ForwardingRule, b: ForwardingRule) =>
  a.entry_protocol === b.entry_protocol &&
  a.entry_port === b.entry_port &&
  a.target_protocol === b.target_protocol &&
  a.target_port === b.target_port;

const one = (call: Call) => getLoadBalancer(call.world, call.params.id ?? "");

export const loadBalancerEndpoints: readonly Endpoint[] = [
  {
    method: "GET",
    route: "/load_balancers",
    handle: ({ world, url }) =>
      json(page("load_balancers", listLoadBalancers(world), url, (lb) => loadBalancerView(world, lb))),
  },
  {
    method: "POST",
    route: "/load_balancers",
    handle: async (call) => {
      const body = await bodyOf(call, loadBalancerBody);
      const spec = specOf(call.world, body);
      const lb = createLoadBalancer(call.world, spec, body.ip);
      return json({ load_balancer: loadBalancerView(call.world, lb) }, 202);
    },
  },
  {
    method: "GET",
    route: "/load_balancers/:id",
    handle: (call) => json({ load_balancer: loadBalancerView(call.world, one(call)) }),
  },
  {
    method: "PUT",
    route: "/load_balancers/:id",
    handle: async (call) => {
      const lb = one(call);
      const spec = specOf(call.world, await bodyOf(call, loadBalancerBody));
      // Create-only, as godo's documentation of `vpc_subnet_uuid` says: an update keeps the first one.
      spec.vpc_subnet_uuid = lb.spec.vpc_subnet_uuid;
      if (spec.region !== lb.spec.region) throw unprocessable("the region of a load balancer cannot be changed");
      lb.spec = spec;
      return json({ load_balancer: loadBalancerView(call.world, lb) });
    },
  },
  {
    method: "DELETE",
    route: "/load_balancers/:id",
    handle: (call) => {
      call.world.loadBalancers.delete(one(call).id);
      return noContent();
    },
  },
  {
    method: "POST",
    route: "/load_balancers/:id/droplets",
    handle: async (call) => {
      const lb = one(call);
      const { droplet_ids } = await bodyOf(call, dropletsBody);
      if (lb.spec.tag !== "") throw unprocessable("this load balancer selects its Droplets by tag");
      for (const id of droplet_ids) checkDroplet(call.world, id);
      lb.spec.droplet_ids = [...new Set([...lb.spec.droplet_ids, ...droplet_ids])];
      return noContent();
    },
  },
  {
    method: "DELETE",
    route: "/load_balancers/:id/droplets",
    handle: async (call) => {
      const lb = one(call);
      const { droplet_ids } = await bodyOf(call, dropletsBody);
      if (lb.spec.tag !== "") throw unprocessable("this load balancer selects its Droplets by tag");
      lb.spec.droplet_ids = lb.spec.droplet_ids.filter((id) => !droplet_ids.includes(id));
      return noContent();
    },
  },
  {
    method: "POST",
    route: "/load_balancers/:id/forwarding_rules",
    handle: async (call) => {
      const lb = one(call);
      const { forwarding_rules } = await bodyOf(call, rulesBody);
      const next = [...lb.spec.forwarding_rules, ...forwarding_rules];
      checkRules(call.world, next);
      lb.spec.forwarding_rules = next;
      return noContent();
    },
  },
  {
    method: "DELETE",
    route: "/load_balancers/:id/forwarding_rules",
    handle: async (call) => {
      const lb = one(call);
      const { forwarding_rules } = await bodyOf(call, rulesBody);
      lb.spec.forwarding_rules = lb.spec.forwarding_rules.filter((r) => !forwarding_rules.some((x) => sameRule(r, x)));
      return noContent();
    },
  },
];
