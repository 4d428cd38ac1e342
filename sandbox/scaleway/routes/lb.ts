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
import { allocatePrivateIp } from "../state/ipam.ts";
import {
  type Backend,
  backendView,
  certificateView,
  createLbIp,
  deleteLb,
  type Frontend,
  frontendView,
  getLb,
  type LoadBalancer,
  lbIpView,
  lbTypes,
  lbView,
  lbZones,
  type PrivateNetworkAttachment,
  privateNetworkView,
  requireReady,
} from "../state/lb.ts";
import { regionOf, type World } from "../state/world.ts";
import { type Call, type Endpoint, hasTags, locality, nameContains, uuidParam } from "./endpoint.ts";
import { backendBody, backendUpdate, frontendBody, healthCheckBody, healthCheckOf } from "./lb-bodies.ts";

const Z = "/lb/v1/zones/:zone";
const zoneOf = (call: Call) => locality(call, "zone", lbZones);
const uuid = (what: string) => v.pipe(v.string(), v.uuid(`must be ${what}'s UUID`));

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

function getBackend(world: World, zone: string, id: string): Backend {
  const b = world.lb.backends.get(id);
  if (!b || world.lb.lbs.get(b.lbId)?.zone !== zone) throw notFound("backend", id);
  return b;
}

function getFrontend(world: World, zone: string, id: string): Frontend {
  const f = world.lb.frontends.get(id);
  if (!f || world.lb.lbs.get(f.lbId)?.zone !== zone) throw notFound("frontend", id);
  return f;
}

/** The certificates must be this load balancer's. */
function checkCertificates(world: World, lbId: string, ids: readonly string[]): void {
  for (const id of ids) {
    if (world.lb.certificates.get(id)?.lbId !== lbId) throw notFound("certificate", id);
  }
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

const backendEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/backends`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const q = call.url.searchParams;
      const items = [...call.world.lb.backends.values()].filter(
        (b) => b.lbId === lb.id && nameContains(q, b.fields.name),
      );
      return pageAnswer("backends", items, call.url, regionalPages, (b) => backendView(call.world, b));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/backends`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(backendBody);
      requireReady(call.world, lb);
      const now = call.world.now();
      const { health_check, server_ip, ...fields } = body;
      const b: Backend = {
        id: call.world.uuid(),
        lbId: lb.id,
        created: now,
        updated: now,
        fields,
        healthCheck: healthCheckOf(health_check),
        pool: server_ip,
      };
      call.world.lb.backends.set(b.id, b);
      return json(backendView(call.world, b));
    },
  },
  {
    method: "GET",
    route: `${Z}/backends/:backend_id`,
    handle: (call) =>
      json(backendView(call.world, getBackend(call.world, zoneOf(call), uuidParam(call, "backend_id")))),
  },
  {
    method: "PUT",
    route: `${Z}/backends/:backend_id`,
    async handle(call) {
      const b = getBackend(call.world, zoneOf(call), uuidParam(call, "backend_id"));
      const body = await call.bodyOf(backendUpdate);
      requireReady(call.world, getLb(call.world, zoneOf(call), b.lbId));
      b.fields = { ...b.fields, ...body };
      b.updated = call.world.now();
      return json(backendView(call.world, b));
    },
  },
  {
    method: "DELETE",
    route: `${Z}/backends/:backend_id`,
    handle(call) {
      const b = getBackend(call.world, zoneOf(call), uuidParam(call, "backend_id"));
      requireReady(call.world, getLb(call.world, zoneOf(call), b.lbId));
      const used = [...call.world.lb.frontends.values()].find((f) => f.backendId === b.id);
      if (used) throw invalidArguments({ backend_id: `backend ${b.id} is used by frontend ${used.id}` });
      call.world.lb.backends.delete(b.id);
      return noContent();
    },
  },
  {
    method: "PUT",
    route: `${Z}/backends/:backend_id/servers`,
    async handle(call) {
      const b = getBackend(call.world, zoneOf(call), uuidParam(call, "backend_id"));
      const body = await call.bodyOf(v.object({ server_ip: v.array(v.pipe(v.string(), v.ip())) }));
      requireReady(call.world, getLb(call.world, zoneOf(call), b.lbId));
      b.pool = [...new Set(body.server_ip)];
      b.updated = call.world.now();
      return json(backendView(call.world, b));
    },
  },
  {
    method: "PUT",
    route: `${Z}/backends/:backend_id/healthcheck`,
    async handle(call) {
      const b = getBackend(call.world, zoneOf(call), uuidParam(call, "backend_id"));
      const body = await call.bodyOf(healthCheckBody);
      requireReady(call.world, getLb(call.world, zoneOf(call), b.lbId));
      b.healthCheck = healthCheckOf(body);
      b.updated = call.world.now();
      return json(backendView(call.world, b).health_check);
    },
  },
];

const frontendEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/frontends`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const q = call.url.searchParams;
      const items = [...call.world.lb.frontends.values()].filter((f) => f.lbId === lb.id && nameContains(q, f.name));
      return pageAnswer("frontends", items, call.url, regionalPages, (f) => frontendView(call.world, f));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/frontends`,
    async handle(call) {
      const zone = zoneOf(call);
      const lb = getLb(call.world, zone, uuidParam(call, "lb_id"));
      const body = await call.bodyOf(frontendBody);
      requireReady(call.world, lb);
      if (getBackend(call.world, zone, body.backend_id).lbId !== lb.id) throw notFound("backend", body.backend_id);
      const taken = [...call.world.lb.frontends.values()].find(
        (f) => f.lbId === lb.id && f.inboundPort === body.inbound_port,
      );
      if (taken) throw invalidArguments({ inbound_port: `port ${body.inbound_port} is used by frontend ${taken.id}` });
      const certificateIds = body.certificate_ids ?? (body.certificate_id ? [body.certificate_id] : []);
      checkCertificates(call.world, lb.id, certificateIds);
      const now = call.world.now();
      const f: Frontend = {
        id: call.world.uuid(),
        lbId: lb.id,
        created: now,
        updated: now,
        name: body.name,
        inboundPort: body.inbound_port,
        backendId: body.backend_id,
        timeoutClient: body.timeout_client ?? null,
        certificateIds,
        enableHttp3: body.enable_http3,
        enableAccessLogs: body.enable_access_logs,
        connectionRateLimit: body.connection_rate_limit ?? null,
      };
      call.world.lb.frontends.set(f.id, f);
      return json(frontendView(call.world, f));
    },
  },
  {
    method: "GET",
    route: `${Z}/frontends/:frontend_id`,
    handle: (call) =>
      json(frontendView(call.world, getFrontend(call.world, zoneOf(call), uuidParam(call, "frontend_id")))),
  },
  {
    method: "PUT",
    route: `${Z}/frontends/:frontend_id`,
    async handle(call) {
      const zone = zoneOf(call);
      const f = getFrontend(call.world, zone, uuidParam(call, "frontend_id"));
      const body = await call.bodyOf(frontendBody);
      requireReady(call.world, getLb(call.world, zone, f.lbId));
      if (getBackend(call.world, zone, body.backend_id).lbId !== f.lbId) throw notFound("backend", body.backend_id);
      const certificateIds = body.certificate_ids ?? (body.certificate_id ? [body.certificate_id] : []);
      checkCertificates(call.world, f.lbId, certificateIds);
      Object.assign(f, {
        name: body.name,
        inboundPort: body.inbound_port,
        backendId: body.backend_id,
        timeoutClient: body.timeout_client ?? null,
        certificateIds,
        enableHttp3: body.enable_http3,
        enableAccessLogs: body.enable_access_logs,
        connectionRateLimit: body.connection_rate_limit ?? null,
        updated: call.world.now(),
      });
      return json(frontendView(call.world, f));
    },
  },
  {
    method: "DELETE",
    route: `${Z}/frontends/:frontend_id`,
    handle(call) {
      const zone = zoneOf(call);
      const f = getFrontend(call.world, zone, uuidParam(call, "frontend_id"));
      requireReady(call.world, getLb(call.world, zone, f.lbId));
      call.world.lb.frontends.delete(f.id);
      return noContent();
    },
  },
];

const extraEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/certificates`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const items = [...call.world.lb.certificates.values()].filter((c) => c.lbId === lb.id);
      return pageAnswer("certificates", items, call.url, regionalPages, (c) => certificateView(call.world, c));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/certificates`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(
        v.object({
          name: v.pipe(v.string(), v.nonEmpty()),
          letsencrypt: v.optional(v.object({ common_name: v.string() })),
          custom_certificate: v.optional(v.object({ certificate_chain: v.string() })),
        }),
      );
      if (!body.letsencrypt === !body.custom_certificate) {
        throw invalidArguments({ letsencrypt: "give exactly one of letsencrypt and custom_certificate" });
      }
      const c = {
        id: call.world.uuid(),
        lbId: lb.id,
        created: call.world.now(),
        name: body.name,
        commonName: body.letsencrypt?.common_name ?? "custom",
      };
      call.world.lb.certificates.set(c.id, c);
      return json(certificateView(call.world, c));
    },
  },
  {
    method: "GET",
    route: `${Z}/certificates/:certificate_id`,
    handle(call) {
      const id = uuidParam(call, "certificate_id");
      const c = call.world.lb.certificates.get(id);
      if (!c || call.world.lb.lbs.get(c.lbId)?.zone !== zoneOf(call)) throw notFound("certificate", id);
      return json(certificateView(call.world, c));
    },
  },
  {
    method: "GET",
    route: `${Z}/lbs/:lb_id/private-networks`,
    handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const items = call.world.lb.privateNetworks.filter((a) => a.lbId === lb.id);
      return pageAnswer("private_network", items, call.url, regionalPages, (a) => privateNetworkView(call.world, a));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/attach-private-network`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(
        v.object({
          private_network_id: uuid("a private network"),
          ipam_ids: v.optional(v.array(uuid("an IPAM IP")), []),
        }),
      );
      requireReady(call.world, lb);
      const pns = call.world.lb.privateNetworks;
      if (pns.some((a) => a.lbId === lb.id && a.privateNetworkId === body.private_network_id)) {
        throw invalidArguments({ private_network_id: "already attached" });
      }
      const a: PrivateNetworkAttachment = {
        lbId: lb.id,
        privateNetworkId: body.private_network_id,
        created: call.world.now(),
        ipamIds: body.ipam_ids,
      };
      pns.push(a);
      // The load balancer's address on the network, booked in IPAM as the real API does (resource `lb_server`).
      if (body.ipam_ids.length === 0) {
        const ips = allocatePrivateIp(call.world, {
          region: regionOf(lb.zone),
          project: lb.project,
          privateNetworkId: body.private_network_id,
          resource: { type: "lb_server", id: lb.id, macAddress: "02:00:00:00:00:01", name: lb.name },
        });
        a.ipamIds = ips.map((ip) => ip.id);
      }
      return json(privateNetworkView(call.world, a));
    },
  },
  {
    method: "POST",
    route: `${Z}/lbs/:lb_id/detach-private-network`,
    async handle(call) {
      const lb = getLb(call.world, zoneOf(call), uuidParam(call, "lb_id"));
      const body = await call.bodyOf(v.object({ private_network_id: uuid("a private network") }));
      requireReady(call.world, lb);
      const pns = call.world.lb.privateNetworks;
      const i = pns.findIndex((a) => a.lbId === lb.id && a.privateNetworkId === body.private_network_id);
      if (i < 0) throw notFound("private_network", body.private_network_id);
      for (const id of pns[i]?.ipamIds ?? []) call.world.ips.delete(id);
      pns.splice(i, 1);
      return noContent();
    },
  },
];

export const loadBalancerEndpoints: Endpoint[] = [
  ...lbEndpoints,
  ...ipEndpoints,
  ...backendEndpoints,
  ...frontendEndpoints,
  ...extraEndpoints,
];
