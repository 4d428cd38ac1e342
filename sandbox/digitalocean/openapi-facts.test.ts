/**
 * The emulator against DigitalOcean's published API description, restated in testdata/openapi-facts.ts: each answer
 * carries every required field with its documented type (and documented types and enums for the other fields it
 * sends), each documented example request is accepted, and a request missing a required field is refused with 422.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { FieldType, SchemaFacts } from "./testdata/openapi-facts.ts";
import * as facts from "./testdata/openapi-facts.ts";
import { type Harness, lbBody, startHarness } from "./testing.ts";

let h: Harness;
afterEach(async () => {
  // The first tests make no emulator.
  const last: Harness | undefined = h;
  h = undefined as unknown as Harness;
  await last?.stop();
});

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

function fits(value: unknown, type: FieldType): boolean {
  return type.split("|").includes(typeOf(value));
}

/** Every way `object` breaks `schema`, as readable lines (empty when it fits). */
function breaches(object: Record<string, unknown>, schema: SchemaFacts): string[] {
  const out: string[] = [];
  for (const [field, type] of Object.entries(schema.required)) {
    if (!(field in object)) out.push(`${field}: required but missing`);
    else if (!fits(object[field], type)) out.push(`${field}: ${typeOf(object[field])}, not ${type}`);
  }
  for (const [field, type] of Object.entries(schema.optional)) {
    if (field in object && !fits(object[field], type)) out.push(`${field}: ${typeOf(object[field])}, not ${type}`);
  }
  for (const [field, allowed] of Object.entries(schema.enums)) {
    if (field in object && !allowed.includes(object[field] as string))
      out.push(`${field}: '${object[field]}' not in enum`);
  }
  return out;
}

const without = (body: Record<string, unknown>, field: string) => {
  const { [field]: _gone, ...rest } = body;
  return rest;
};

describe("the restated examples fit their own facts", () => {
  test.each<[string, SchemaFacts]>([
    ["droplet", facts.droplet],
    ["load balancer", facts.loadBalancer],
    ["forwarding rule", facts.forwardingRule],
    ["health check", facts.healthCheck],
    ["sticky sessions", facts.stickySessions],
    ["firewall", facts.firewall],
    ["certificate", facts.certificate],
    ["error", facts.error],
    ["account", facts.account],
    ["region", facts.region],
  ])("%s", (_, schema) => {
    expect(breaches(schema.example as Record<string, unknown>, schema)).toEqual([]);
  });
});

describe("answers carry every required field with its documented type", () => {
  test("droplet, with its networks", async () => {
    h = startHarness();
    const id = h.droplet({ name: "node-1" });
    const { droplet } = (await h.call("GET", `/droplets/${id}`)).body;
    expect(breaches(droplet, facts.droplet)).toEqual([]);
    for (const net of droplet.networks.v4) {
      for (const [field, type] of Object.entries(facts.networkV4))
        expect([field, typeOf(net[field])]).toEqual([field, type]);
      expect(facts.networkV4Types).toContain(net.type);
    }
    for (const net of droplet.networks.v6) {
      for (const [field, type] of Object.entries(facts.networkV6))
        expect([field, typeOf(net[field])]).toEqual([field, type]);
      expect(facts.networkV6Types).toContain(net.type);
    }
    const listed = (await h.call("GET", "/droplets")).body.droplets[0];
    expect(breaches(listed, facts.droplet)).toEqual([]);
  });

  test("load balancer, its forwarding rules, health check and sticky sessions, new and then active", async () => {
    h = startHarness({ lbActiveDelayMs: 1000 });
    const created = (await h.call("POST", "/load_balancers", lbBody())).body.load_balancer;
    h.clock.advance(1000);
    const active = (await h.call("GET", `/load_balancers/${created.id}`)).body.load_balancer;
    for (const lb of [created, active]) {
      expect(breaches(lb, facts.loadBalancer)).toEqual([]);
      expect(lb.ip).toMatch(facts.loadBalancerIpPattern);
      for (const rule of lb.forwarding_rules) expect(breaches(rule, facts.forwardingRule)).toEqual([]);
      expect(breaches(lb.health_check, facts.healthCheck)).toEqual([]);
      expect(breaches(lb.sticky_sessions, facts.stickySessions)).toEqual([]);
    }
    expect([created.status, active.status]).toEqual(["new", "active"]);
    expect(active.ip).not.toBe("");
  });

  test("an omitted health check and sticky sessions take the documented defaults", async () => {
    h = startHarness();
    const lb = (await h.call("POST", "/load_balancers", lbBody())).body.load_balancer;
    expect(lb.health_check).toEqual(facts.healthCheck.defaults);
    expect(lb.sticky_sessions).toEqual(facts.stickySessions.defaults);
  });

  test("region, listed", async () => {
    h = startHarness();
    const { regions } = (await h.call("GET", "/regions")).body;
    expect(regions.length).toBeGreaterThan(0);
    for (const r of regions) expect(breaches(r, facts.region)).toEqual([]);
  });

  test("firewall, certificate, tag and account", async () => {
    h = startHarness();
    const fw = (await h.call("POST", "/firewalls", facts.firewallCreate.example)).body.firewall;
    expect(breaches(fw, facts.firewall)).toEqual([]);
    for (const kind of ["custom", "lets_encrypt"] as const) {
      const cert = (await h.call("POST", "/certificates", facts.certificateCreate[kind].example)).body.certificate;
      expect(breaches(cert, facts.certificate)).toEqual([]);
    }
    const tag = (await h.call("POST", "/tags", { name: facts.tag.example.name })).body.tag;
    for (const [field, type] of Object.entries(facts.tag.answer))
      expect([field, typeOf(tag[field])]).toEqual([field, type]);
    expect(breaches((await h.call("GET", "/account")).body.account, facts.account)).toEqual([]);
  });

  test("errors: id and message, with the request_id", async () => {
    h = startHarness();
    const answers = [
      await h.call("GET", "/droplets", undefined, "wrong"),
      await h.call("GET", "/droplets/1"),
      await h.call("POST", "/load_balancers", {}),
    ];
    for (const a of answers) expect(breaches(a.body, facts.error)).toEqual([]);
    expect(answers[2]?.body.id).toBe(facts.error.example.id);
  });

  test("lists: meta.total and links.pages with only the documented keys; rate-limit headers as integers", async () => {
    h = startHarness();
    for (let i = 0; i < 3; i++) h.droplet({ name: `n${i}` });
    for (const path of ["/droplets?per_page=1&page=2", "/load_balancers", "/certificates", "/firewalls"]) {
      const answer = await h.call("GET", path);
      for (const [field, type] of Object.entries(facts.pagination.metaRequired)) {
        expect([path, typeOf(answer.body.meta[field])]).toEqual([path, type]);
      }
      for (const key of Object.keys(answer.body.links.pages ?? {}))
        expect(facts.pagination.pageLinks as readonly string[]).toContain(key);
      for (const name of facts.rateLimitHeaders.names) expect(answer.headers.get(name)).toMatch(/^\d+$/);
    }
    const middle = await h.call("GET", "/droplets?per_page=1&page=2");
    expect(Object.keys(middle.body.links.pages).sort()).toEqual(["first", "last", "next", "prev"]);
    expect(middle.headers.get("ratelimit-limit")).toBe(String(facts.rateLimitHeaders.hourly));
  });
});

describe("the documented example requests are accepted", () => {
  test("a load balancer by tag, with a certificate, custom health check and sticky sessions", async () => {
    h = startHarness();
    const cert = (await h.call("POST", "/certificates", facts.certificateCreate.lets_encrypt.example)).body.certificate;
    const [rule] = facts.loadBalancerCreate.example.forwarding_rules;
    const body = { ...facts.loadBalancerCreate.example, forwarding_rules: [{ ...rule, certificate_id: cert.id }] };
    const answer = await h.call("POST", "/load_balancers", body);
    expect(answer.status).toBe(202);
    expect(answer.body.load_balancer).toMatchObject({ tag: "prod:web", sticky_sessions: body.sticky_sessions });
  });

  test("tagging resources", async () => {
    h = startHarness();
    const id = h.droplet({ name: "n" });
    await h.call("POST", "/tags", { name: "web" });
    const [item] = facts.tag.resources.example.resources;
    const answer = await h.call("POST", "/tags/web/resources", { resources: [{ ...item, resource_id: String(id) }] });
    expect(answer.status).toBe(204);
  });
});

describe("a request missing a required field is refused with 422", () => {
  const lb = lbBody();
  const cases: [string, string, Record<string, unknown>][] = [
    ...facts.loadBalancerCreate.required.map((f): [string, string, Record<string, unknown>] => [
      `load balancer without ${f}`,
      "/load_balancers",
      without(lb, f),
    ]),
    ["load balancer without droplet_ids or tag", "/load_balancers", without(lb, "droplet_ids")],
    ...Object.keys(facts.forwardingRule.required).map((f): [string, string, Record<string, unknown>] => [
      `forwarding rule without ${f}`,
      "/load_balancers",
      { ...lb, forwarding_rules: [without(facts.forwardingRule.example, f)] },
    ]),
    ...facts.firewallCreate.required.map((f): [string, string, Record<string, unknown>] => [
      `firewall without ${f}`,
      "/firewalls",
      without(facts.firewallCreate.example, f),
    ]),
    [
      "firewall without any rules",
      "/firewalls",
      without(without(facts.firewallCreate.example, "inbound_rules"), "outbound_rules"),
    ],
    ...facts.firewallCreate.rule.required.map((f): [string, string, Record<string, unknown>] => [
      `firewall rule without ${f}`,
      "/firewalls",
      { name: "fw", inbound_rules: [without({ protocol: "tcp", ports: "80", sources: {} }, f)] },
    ]),
    ["inbound rule without sources", "/firewalls", { name: "fw", inbound_rules: [{ protocol: "tcp", ports: "80" }] }],
    [
      "outbound rule without destinations",
      "/firewalls",
      { name: "fw", outbound_rules: [{ protocol: "tcp", ports: "80" }] },
    ],
    ...facts.certificateCreate.custom.required.map((f): [string, string, Record<string, unknown>] => [
      `custom certificate without ${f}`,
      "/certificates",
      without(facts.certificateCreate.custom.example, f),
    ]),
    ...facts.certificateCreate.lets_encrypt.required.map((f): [string, string, Record<string, unknown>] => [
      `Let's Encrypt certificate without ${f}`,
      "/certificates",
      without(facts.certificateCreate.lets_encrypt.example, f),
    ]),
    ["tag with a name outside the pattern", "/tags", { name: "no spaces" }],
    ["tag resources without resources", "/tags/web/resources", {}],
  ];
  test.each(cases)("%s", async (_, path, body) => {
    h = startHarness();
    await h.call("POST", "/tags", { name: "web" });
    const answer = await h.call("POST", path, body);
    expect(answer.status).toBe(422);
    expect(breaches(answer.body, facts.error)).toEqual([]);
    expect(answer.body.id).toBe("unprocessable_entity");
  });
});
