/**
 * The emulator against Scaleway's API as its official SDK reads it, restated in testdata/sdk-facts.ts: each answer
 * carries every field the SDK's type requires, with its JSON type, optional fields of their type when sent, values
 * inside the enums; lists page by the product's own parameter with `total_count`; every error body carries the
 * fields the SDK needs to read it as its type.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { errorStatus, errorTypes } from "./errors.ts";
import { baremetalZones, instanceZones, ipamRegions } from "./state/world.ts";
import type { FieldType, TypeFacts } from "./testdata/sdk-facts.ts";
import * as facts from "./testdata/sdk-facts.ts";
import { type Harness, PRIVATE_NETWORK, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

const fits = (value: unknown, type: FieldType) => type.split("|").includes(typeOf(value));

/** Every way `object` breaks `type`, as readable lines (empty when it fits). */
function breaches(object: Record<string, unknown>, type: TypeFacts): string[] {
  const out: string[] = [];
  for (const [field, want] of Object.entries(type.required)) {
    if (!(field in object)) out.push(`${field}: required but missing`);
    else if (!fits(object[field], want)) out.push(`${field}: ${typeOf(object[field])}, not ${want}`);
  }
  for (const [field, want] of Object.entries(type.optional)) {
    if (field in object && !fits(object[field], want)) out.push(`${field}: ${typeOf(object[field])}, not ${want}`);
  }
  for (const [field, allowed] of Object.entries(type.enums)) {
    const values = Array.isArray(object[field]) ? (object[field] as unknown[]) : [object[field]];
    for (const value of values) {
      if (field in object && !allowed.includes(value as string)) out.push(`${field}: '${value}' not in enum`);
    }
  }
  return out;
}

describe("answers fit the SDK's types", () => {
  test("an Instance server, its public IPs (IPv4 and IPv6) and its private NIC", async () => {
    const s = h.instance({ name: "node-1", public_ipv6: true, private_networks: [PRIVATE_NETWORK] });
    const { status, body } = await h.call("GET", `/instance/v1/zones/fr-par-1/servers/${s.id}`);
    expect(status).toBe(200);
    expect(breaches(body.server, facts.instanceServer)).toEqual([]);
    expect(body.server.public_ips).toHaveLength(2);
    for (const ip of body.server.public_ips) expect(breaches(ip, facts.instanceServerIp)).toEqual([]);
    expect(breaches(body.server.private_nics[0], facts.instancePrivateNic)).toEqual([]);
  });

  test.each(["ready", "stopped"] as const)("an Elastic Metal server (%s) and its IPs, unwrapped", async (status) => {
    const s = h.baremetal({ name: "metal-1", status });
    const answer = await h.call("GET", `/baremetal/v1/zones/fr-par-2/servers/${s.id}`);
    expect(answer.status).toBe(200);
    expect(breaches(answer.body, facts.baremetalServer)).toEqual([]);
    for (const ip of answer.body.ips) expect(breaches(ip, facts.baremetalIp)).toEqual([]);
  });

  test("an IPAM IP of a private NIC, its address with its prefix length", async () => {
    const s = h.instance({ name: "node-1", private_networks: [PRIVATE_NETWORK] });
    const nic = s.privateNics[0]?.id ?? "";
    const { body } = await h.call("GET", `/ipam/v1/regions/fr-par/ips?resource_id=${nic}&is_ipv6=false`);
    expect(body.total_count).toBe(1);
    const ip = body.ips[0];
    expect(breaches(ip, facts.ipamIp)).toEqual([]);
    expect(breaches(ip.resource, facts.ipamResource)).toEqual([]);
    expect(ip.resource.type).toBe("instance_private_nic");
    expect(ip.address).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
  });
});

describe("lists page as the SDK asks", () => {
  test.each(facts.listEndpoints)("$path pages by page and $sizeParam with total_count", async (endpoint) => {
    for (let i = 0; i < 5; i++) {
      if (endpoint.key === "ips") h.instance({ name: `n-${i}`, private_networks: [PRIVATE_NETWORK] });
      else if (endpoint.path.startsWith("/baremetal")) h.baremetal({ name: `m-${i}` });
      else h.instance({ name: `n-${i}` });
    }
    const first = await h.call("GET", `${endpoint.path}?page=1&${endpoint.sizeParam}=3`);
    const second = await h.call("GET", `${endpoint.path}?page=2&${endpoint.sizeParam}=3`);
    const total = first.body.total_count;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(second.body.total_count).toBe(total);
    expect(first.body[endpoint.key]).toHaveLength(3);
    const ids = [...first.body[endpoint.key], ...second.body[endpoint.key]].map((x: { id: string }) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test.each(facts.listEndpoints)("$path refuses a page size past 100, naming it", async (endpoint) => {
    const { status, body } = await h.call("GET", `${endpoint.path}?${endpoint.sizeParam}=101`);
    expect(status).toBe(400);
    expect(body.details[0].argument_name).toBe(endpoint.sizeParam);
  });

  test("each product answers in the zones and regions its SDK lists, and refuses others", async () => {
    expect([...instanceZones]).toEqual([...facts.localities.instance]);
    expect([...baremetalZones]).toEqual([...facts.localities.baremetal]);
    expect([...ipamRegions]).toEqual([...facts.localities.ipam]);
    expect((await h.call("GET", "/baremetal/v1/zones/fr-par-3/servers")).status).toBe(400);
    expect((await h.call("GET", "/instance/v1/zones/fr-par-3/servers")).status).toBe(200);
  });
});

describe("error bodies carry what the SDK reads", () => {
  test("a missing server is not_found with its resource and ID", async () => {
    const id = "11111111-2222-4333-8444-555555555555";
    const { status, body } = await h.call("GET", `/instance/v1/zones/fr-par-1/servers/${id}`);
    expect(status).toBe(404);
    expect(body).toEqual({
      type: "not_found",
      message: "resource is not found",
      resource: "instance_server",
      resource_id: id,
    });
  });

  test("a wrong secret key is denied_authentication with method and reason", async () => {
    const { status, body } = await h.call("GET", "/instance/v1/zones/fr-par-1/servers", undefined, "wrong");
    expect(status).toBe(401);
    for (const field of facts.errorFields.denied_authentication ?? []) expect(typeof body[field]).toBe("string");
  });

  test("a bad argument is invalid_arguments with details the SDK reads", async () => {
    const { status, body } = await h.call("GET", "/instance/v1/zones/fr-par-1/servers/not-a-uuid");
    expect(status).toBe(400);
    expect(body.type).toBe("invalid_arguments");
    for (const d of body.details) expect(breaches(d, facts.invalidArgumentDetail)).toEqual([]);
  });

  test.each(errorTypes)("an injected %s carries its type's fields and status", async (type) => {
    await h.call("PUT", "/_emulator/faults", { failNext: [{ pathPrefix: "/instance", type, count: 1 }] });
    const { status, body } = await h.call("GET", "/instance/v1/zones/fr-par-1/servers");
    expect(status).toBe(errorStatus[type]);
    expect(body.type).toBe(type);
    for (const field of facts.errorFields[type] ?? []) expect(body).toHaveProperty(field);
    // Spent: the next call is answered.
    expect((await h.call("GET", "/instance/v1/zones/fr-par-1/servers")).status).toBe(200);
  });
});
