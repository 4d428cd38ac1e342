/**
 * The emulator's Load Balancer API: answers fit `@scaleway/sdk-lb`'s types (testdata/sdk-lb-facts.ts), a load
 * balancer is pending then ready with its IPs, frontends and backends are written as the SDK sends them, and the
 * API's refusals (not ready, IP in use, backend in use) are its own.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { lbZones } from "./state/lb.ts";
import type { FieldType, TypeFacts } from "./testdata/sdk-facts.ts";
import * as facts from "./testdata/sdk-lb-facts.ts";
import { type Harness, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

const Z = "/lb/v1/zones/fr-par-1";

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

function breaches(object: Record<string, unknown>, type: TypeFacts): string[] {
  const fits = (value: unknown, want: FieldType) => want.split("|").includes(typeOf(value));
  const out: string[] = [];
  for (const [field, want] of Object.entries(type.required)) {
    if (!(field in object)) out.push(`${field}: required but missing`);
    else if (!fits(object[field], want)) out.push(`${field}: ${typeOf(object[field])}, not ${want}`);
  }
  for (const [field, want] of Object.entries(type.optional)) {
    if (field in object && !fits(object[field], want)) out.push(`${field}: ${typeOf(object[field])}, not ${want}`);
  }
  for (const [field, allowed] of Object.entries(type.enums)) {
    if (field in object && !allowed.includes(object[field] as string)) out.push(`${field}: not in enum`);
  }
  return out;
}

const healthCheck = { port: 30080, check_max_retries: 5, check_delay: "5s", tcp_config: {} };

async function makeLb(body: Record<string, unknown> = {}) {
  const { status, body: lb } = await h.call("POST", `${Z}/lbs`, { name: "lb-1", type: "LB-S", ...body });
  expect(status).toBe(200);
  return lb;
}

async function makeBackend(lbId: string, extra: Record<string, unknown> = {}) {
  const body = { name: "b", forward_protocol: "tcp", forward_port: 30080, health_check: healthCheck, ...extra };
  return h.call("POST", `${Z}/lbs/${lbId}/backends`, body);
}

describe("answers fit the SDK's types", () => {
  test("a load balancer, its instance and its IPs", async () => {
    const lb = await makeLb({ assign_flexible_ipv6: true });
    expect(breaches(lb, facts.lb)).toEqual([]);
    for (const i of lb.instances) expect(breaches(i, facts.lbInstance)).toEqual([]);
    expect(lb.ip).toHaveLength(2);
    for (const ip of lb.ip) expect(breaches(ip, facts.lbIp)).toEqual([]);
    expect(lb.type).toBe("lb-s");
  });

  test("a backend with its health check, a frontend, a private network", async () => {
    const lb = await makeLb();
    const b = (await makeBackend(lb.id, { timeout_server: "10.0s", server_ip: ["10.0.0.1"] })).body;
    expect(breaches(b, facts.lbBackend)).toEqual([]);
    expect(breaches(b.health_check, facts.lbHealthCheck)).toEqual([]);
    expect(b.timeout_server).toBe("10s");
    const f = (await h.call("POST", `${Z}/lbs/${lb.id}/frontends`, { name: "f", inbound_port: 80, backend_id: b.id }))
      .body;
    expect(breaches(f, facts.lbFrontend)).toEqual([]);
    const pn = "0e2b6d4c-1b2a-4c3d-8e5f-000000000009";
    const a = await h.call("POST", `${Z}/lbs/${lb.id}/attach-private-network`, { private_network_id: pn });
    expect(breaches(a.body, facts.lbPrivateNetwork)).toEqual([]);
    const list = await h.call("GET", `${Z}/lbs/${lb.id}/private-networks`);
    expect(list.body[facts.lbListKeys.privateNetworks]).toHaveLength(1);
  });

  test("a frontend's access list, set as a whole", async () => {
    const lb = await makeLb();
    const b = (await makeBackend(lb.id)).body;
    const f = (await h.call("POST", `${Z}/lbs/${lb.id}/frontends`, { name: "f", inbound_port: 80, backend_id: b.id }))
      .body;
    const rules = [
      { name: "r-0", index: 0, action: { type: "allow" }, match: { ip_subnet: ["10.0.0.0/8"] } },
      { name: "r-end", index: 1, action: { type: "deny" }, match: { ip_subnet: ["0.0.0.0/0", "::/0"] } },
    ];
    const set = await h.call("PUT", `${Z}/frontends/${f.id}/acls`, { acls: rules });
    expect(set.body.total_count).toBe(2);
    const listed = await h.call("GET", `${Z}/frontends/${f.id}/acls?name=r-`);
    for (const a of listed.body.acls) {
      expect(breaches(a, facts.lbAcl)).toEqual([]);
      expect(breaches(a.match, facts.lbAclMatch)).toEqual([]);
      expect(breaches(a.action, facts.lbAclAction)).toEqual([]);
    }
    await h.call("PUT", `${Z}/frontends/${f.id}/acls`, { acls: rules.slice(1) });
    expect((await h.call("GET", `${Z}/frontends/${f.id}/acls`)).body.acls.map((a: { name: string }) => a.name)).toEqual(
      ["r-end"],
    );
  });

  test("the zones are the SDK's", () => {
    expect([...lbZones] as string[]).toEqual(facts.lbZones);
  });
});

describe("the load balancer's life", () => {
  test("pending until ready; frontends and backends wait for ready", async () => {
    h.emulator.world.lb.readyAfterMs = 5000;
    const lb = await makeLb();
    expect(lb.status).toBe("pending");
    const refused = await makeBackend(lb.id);
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe("transient_state");
    h.clock.advance(5000);
    expect((await h.call("GET", `${Z}/lbs/${lb.id}`)).body.status).toBe("ready");
    expect((await makeBackend(lb.id)).status).toBe(200);
  });

  test("a reserved IP is used by ID, kept on delete unless released", async () => {
    const ip = (await h.call("POST", `${Z}/ips`, {})).body;
    const lb = await makeLb({ ip_ids: [ip.id] });
    expect(lb.ip.map((i: { id: string }) => i.id)).toEqual([ip.id]);
    const again = await h.call("POST", `${Z}/lbs`, { name: "lb-2", type: "lb-s", ip_ids: [ip.id] });
    expect(again.status).toBe(400);
    expect((await h.call("DELETE", `${Z}/lbs/${lb.id}?release_ip=false`)).status).toBe(204);
    expect((await h.call("GET", `${Z}/ips/${ip.id}`)).body.lb_id).toBeNull();
    const found = await h.call("GET", `${Z}/ips?ip_address=${ip.ip_address}`);
    expect(found.body.ips).toHaveLength(1);
  });

  test("a flexible IP made with the load balancer goes with it when released", async () => {
    const lb = await makeLb();
    expect((await h.call("DELETE", `${Z}/lbs/${lb.id}?release_ip=true`)).status).toBe(204);
    expect(h.emulator.world.lb.ips.size).toBe(0);
  });

  test("a backend a frontend uses cannot be deleted; servers are set as a whole", async () => {
    const lb = await makeLb();
    const b = (await makeBackend(lb.id)).body;
    await h.call("POST", `${Z}/lbs/${lb.id}/frontends`, { name: "f", inbound_port: 80, backend_id: b.id });
    expect((await h.call("DELETE", `${Z}/backends/${b.id}`)).status).toBe(400);
    const set = await h.call("PUT", `${Z}/backends/${b.id}/servers`, { server_ip: ["10.0.0.2", "10.0.0.3"] });
    expect(set.body.pool).toEqual(["10.0.0.2", "10.0.0.3"]);
  });

  test("a frontend refuses a certificate of another load balancer", async () => {
    const lb = await makeLb();
    const other = await makeLb({ name: "lb-2" });
    const cert = await h.call("POST", `${Z}/lbs/${other.id}/certificates`, {
      name: "c",
      letsencrypt: { common_name: "example.com" },
    });
    const b = (await makeBackend(lb.id)).body;
    const f = await h.call("POST", `${Z}/lbs/${lb.id}/frontends`, {
      name: "f",
      inbound_port: 443,
      backend_id: b.id,
      certificate_ids: [cert.body.id],
    });
    expect(f.status).toBe(404);
  });

  test("lists filter by name and page", async () => {
    await makeLb({ name: "abc-1" });
    await makeLb({ name: "xyz-1" });
    const { body } = await h.call("GET", `${Z}/lbs?name=abc&page_size=1`);
    expect(body.total_count).toBe(1);
    expect(body.lbs[0].name).toBe("abc-1");
  });
});
