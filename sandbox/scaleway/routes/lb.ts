/**
 * The Load Balancer API v1, zoned (`/lb/v1/zones/{zone}/…`): the paths, bodies and answers the official SDK's
 * `ZonedAPI` uses (scaleway-sdk-js `packages_generated/lb/src/v1/api.gen.ts`) for load balancers, flexible IPs,
 * backends (servers, health check), frontends, certificates and private networks. Lists page with `page` and
 * `page_size`; `name=` matches part of the name.
 */
import * as v from "valibot";
import { json, noContent } from "../../kit/router.ts";
import { invalidArguments, notFound } from "../errors.ts";
import { pageAnswer, regionalPages } from "../listing.ts";
import { createLbIp, deleteLb, getLb, type LoadBalancer, lbTypes, requireReady } from "../state/lb.ts";
import { lbIpView, lbView } from "../state/lb-views.ts";
import type { World } from "../state/world.ts";
import { type Endpoint, hasTags, nameContains, uuidParam } from "./endpoint.ts";
import { uuid, Z, zoneOf } from "./lb-common.ts";
import { extraEndpoints } from "./lb-extras.ts";
import { aclEndpoints, backendEndpoints, frontendEndpoints } from "./lb-parts.ts";

const sslLevel = v.picklist([
  "ssl_compatibility_level_unknown",
  "ssl_compatibility_level_intermediate",
  "ssl_compatibility_level_modern",
  "ssl_compatibility_level_old",
]);
const lbType = v.pipe(
  v.string(),
  v.transform((t) => t.toLowerCase()),
  v.picklist(lbTypes, `must be one of ${lbTypes.join(", ")}`),
);

const createLbBody = v.object({
  name: v.pipe(v.string(), v.nonEmpty(), v.maxLength(255)),
  description: v.optional(v.string(), ""),
  type: lbType,
  tags: v.optional(v.array(v.string()), []),
  ip_id: v.optional(uuid("an IP")),
  ip_ids: v.optional(v.array(uuid("an IP")), []),
  assign_flexible_ip: v.optional(v.boolean()),
  assign_flexible_ipv6: v.optional(v.boolean()),
  ssl_compatibility_level: v.optional(sslLevel, "ssl_compatibility_level_intermediate"),
  project_id: v.optional(uuid("a project")),
  organization_id: v.optional(uuid("an organization")),
});

const updateLbBody = v.object({
  name: v.pipe(v.string(), v.nonEmpty()),
  description: v.string(),
  tags: v.optional(v.array(v.string())),
  ssl_compatibility_level: v.optional(sslLevel),
});

function createLb(world: World, zone: string, body: v.InferOutput<typeof createLbBody>): LoadBalancer {
  const project = body.project_id ?? world.defaultProject.id;
  const wanted = [...(body.ip_id ? [body.ip_id] : []), ...body.ip_ids];
  const ips = wanted.map((id) => {
    const ip = world.lb.ips.get(id);
    if (!ip || ip.zone !== zone) throw notFound("ip", id);
    if (ip.lbId !== undefined) throw invalidArguments({ ip_ids: `IP ${id} is already used by lb ${ip.lbId}` });
    return ip;
  });
  if (ips.filter((ip) => !ip.ipv6).length > 1 || ips.filter((ip) => ip.ipv6).length > 1) {
    throw invalidArguments({ ip_ids: "at most one IPv4 and one IPv6" });
  }
  if (ips.length > 0 && !ips.some((ip) => !ip.ipv6)) throw invalidArguments({ ip_ids: "an IPv4 is required" });
  const now = world.now();
  const lb: LoadBalancer = {
    id: world.uuid(),
    zone,
    project,
    created: now,
    updated: now,
    name: body.name,
    description: body.description,
    type: body.type,
    tags: body.tags,
    sslCompatibilityLevel: body.ssl_compatibility_level,
    readyAt: now + world.lb.readyAfterMs,
  };
  world.lb.lbs.set(lb.id, lb);
  for (const ip of ips) ip.lbId = lb.id;
  if (ips.length === 0 && body.assign_flexible_ip !== false) createLbIp(world, zone, project, false, lb.id);
  if (ips.length === 0 && body.assign_flexible_ipv6 === true) createLbIp(world, zone, project, true, lb.id);
  return lb;
}

const lbEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/lbs`,
    handle(call) {
      const zone = zoneOf(call);
      const q = call.url.searchParams;
      const project = q.get("project_id");
      const lbs = [...call.world.lb.lbs.values()]
        .filter((lb) => lb.zone === zone && nameContains(q, lb.name) && hasTags(q, lb.tags))
        .filter((lb) => project === null || lb.project === project)
        .sort((a, b) => a.created - b.created);
      return pageAnswer("lbs", lbs, call.url, regionalPages, (lb) => lbView(call.world, lb));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs`,
    async handle(call) {
      const zone = zoneOf(call);
      const lb = createLb(call.world, zone, await call.bodyOf(createLbBody));
      return json(lbView(call.world, lb));
    },
  },
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id`,
    handle: (call) => json(lbView(call.world, getLb(call.world, zoneOf(call), uuidParam(call, "lb_id")))),
  },
  {
    method: "PUT",
    route: `${Z}/lbs/:lb_id`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(updateLbBody);
      lb.name = body.name;
      lb.description = body.description;
      if (body.tags) lb.tags = body.tags;
      if (body.ssl_compatibility_level) lb.sslCompatibilityLevel = body.ssl_compatibility_level;
      lb.updated = call.world.now();
      return json(lbView(call.world, lb));
    },
  },
  {
    method: "DELETE",
    route: `${Z}/lbs/:lb_id`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      deleteLb(call.world, lb, call.url.searchParams.get("release_ip") === "true");
      return noContent();
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/migrate`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      requireReady(call.world, lb);
      lb.type = (await call.bodyOf(v.object({ type: lbType }))).type;
      lb.updated = call.world.now();
      lb.readyAt = lb.updated + call.world.lb.readyAfterMs;
      return json(lbView(call.world, lb));
    },
  },
];

const ipEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/ips`,
    handle(call) {
      const zone = zoneOf(call);
      const q = call.url.searchParams;
      const address = q.get("ip_address");
      const type = q.get("ip_type");
      const ips = [...call.world.lb.ips.values()].filter(
        (ip) =>
          ip.zone === zone &&
          (address === null || ip.address === address) &&
          (type === null || type === "all" || (type === "ipv6") === ip.ipv6),
      );
      return pageAnswer("ips", ips, call.url, regionalPages, (ip) => lbIpView(ip, call.world.organizationId));
    },
  },
  {
    method: "POST",
    route: `${Z}/ips`,
    async handle(call) {
      const zone = zoneOf(call);
      const body = await call.bodyOf(
        v.object({ is_ipv6: v.optional(v.boolean(), false), project_id: v.optional(uuid("a project")) }),
      );
      const ip = createLbIp(call.world, zone, body.project_id ?? call.world.defaultProject.id, body.is_ipv6);
      return json(lbIpView(ip, call.world.organizationId));
    },
  },
  {
    method: "GET",
    route: `${Z}/ips/:ip_id`,
    handle(call) {
      const zone = zoneOf(call);
      const id = uuidParam(call, "ip_id");
      const ip = call.world.lb.ips.get(id);
      if (!ip || ip.zone !== zone) throw notFound("ip", id);
      return json(lbIpView(ip, call.world.organizationId));
    },
  },
  {
    method: "DELETE",
    route: `${Z}/ips/:ip_id`,
    handle(call) {
      const zone = zoneOf(call);
      const id = uuidParam(call, "ip_id");
      const ip = call.world.lb.ips.get(id);
      if (!ip || ip.zone !== zone) throw notFound("ip", id);
      if (ip.lbId !== undefined) throw invalidArguments({ ip_id: `IP ${id} is used by lb ${ip.lbId}` });
      call.world.lb.ips.delete(id);
      return noContent();
    },
  },
];

export const loadBalancerEndpoints: Endpoint[] = [
  ...lbEndpoints,
  ...ipEndpoints,
  ...backendEndpoints,
  ...frontendEndpoints,
  ...aclEndpoints,
  ...extraEndpoints,
];
