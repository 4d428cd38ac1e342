/**
 * The Load Balancer API's backends (with their servers and health check), frontends and frontends' access lists,
 * zoned, as `@scaleway/sdk-lb`'s `ZonedAPI` calls them. Writes wait for the load balancer to be `ready`.
 */
import * as v from "valibot";
import { json, noContent } from "../../kit/router.ts";
import { invalidArguments, notFound } from "../errors.ts";
import { pageAnswer, regionalPages } from "../listing.ts";
import { type Acl, type Backend, deleteFrontend, type Frontend, getLb, requireReady } from "../state/lb.ts";
import { aclView, backendView, frontendView } from "../state/lb-views.ts";
import { type Endpoint, nameContains, uuidParam } from "./endpoint.ts";
import { backendBody, backendUpdate, frontendBody, healthCheckBody, healthCheckOf } from "./lb-bodies.ts";
import { checkCertificates, getBackend, getFrontend, Z, zoneOf } from "./lb-common.ts";

export const backendEndpoints: Endpoint[] = [
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

export const frontendEndpoints: Endpoint[] = [
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
      deleteFrontend(call.world, f.id);
      return noContent();
    },
  },
];

const aclBody = v.object({
  name: v.pipe(v.string(), v.nonEmpty()),
  description: v.optional(v.string(), ""),
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  action: v.object({ type: v.picklist(["allow", "deny", "redirect"]) }),
  match: v.optional(
    v.object({
      ip_subnet: v.optional(v.array(v.pipe(v.string(), v.nonEmpty())), []),
      invert: v.optional(v.boolean(), false),
    }),
    {},
  ),
});

export const aclEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: `${Z}/frontends/:frontend_id/acls`,
    handle(call) {
      const f = getFrontend(call.world, zoneOf(call), uuidParam(call, "frontend_id"));
      const q = call.url.searchParams;
      const items = [...call.world.lb.acls.values()]
        .filter((a) => a.frontendId === f.id && nameContains(q, a.name))
        .sort((a, b) => a.index - b.index);
      return pageAnswer("acls", items, call.url, regionalPages, aclView);
    },
  },
  {
    method: "PUT",
    route: `${Z}/frontends/:frontend_id/acls`,
    async handle(call) {
      const zone = zoneOf(call);
      const f = getFrontend(call.world, zone, uuidParam(call, "frontend_id"));
      const body = await call.bodyOf(v.object({ acls: v.array(aclBody) }));
      requireReady(call.world, getLb(call.world, zone, f.lbId));
      for (const [id, a] of call.world.lb.acls) if (a.frontendId === f.id) call.world.lb.acls.delete(id);
      const made: Acl[] = body.acls.map((a) => ({
        id: call.world.uuid(),
        frontendId: f.id,
        created: call.world.now(),
        name: a.name,
        description: a.description,
        index: a.index,
        action: a.action.type,
        ipSubnet: a.match.ip_subnet ?? [],
        invert: a.match.invert ?? false,
      }));
      for (const a of made) call.world.lb.acls.set(a.id, a);
      return json({ acls: made.map(aclView), total_count: made.length });
    },
  },
];
