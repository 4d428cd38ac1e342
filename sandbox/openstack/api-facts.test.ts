/**
 * The emulator against the OpenStack API reference, restated in testdata/api-facts.ts: each answer carries every
 * field the reference lists with its documented type and enum, errors come in each service's envelope, and lists
 * page as documented.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { addTrunk } from "./state.ts";
import * as facts from "./testdata/api-facts.ts";
import { breaches, type Harness, passwordAuth, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

const V247 = { "openstack-api-version": "compute 2.47" };

describe("Keystone", () => {
  test("a password token: 201, X-Subject-Token, and a scoped token body with its catalog", async () => {
    const res = await h.call("POST", "/identity/v3/auth/tokens", { body: passwordAuth(), token: null });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-subject-token")).toBeTruthy();
    const t = res.body.token;
    expect(breaches(t, facts.token)).toEqual([]);
    expect(breaches(t, facts.scopedToken)).toEqual([]);
    expect(t.expires_at).toMatch(facts.keystoneTime);
    expect(t.issued_at).toMatch(facts.keystoneTime);
    for (const entry of t.catalog) {
      expect(breaches(entry, facts.catalogEntry)).toEqual([]);
      for (const e of entry.endpoints) expect(breaches(e, facts.catalogEndpoint)).toEqual([]);
    }
    expect(t.catalog.map((e: { type: string }) => e.type).sort()).toEqual([
      "compute",
      "identity",
      "load-balancer",
      "network",
    ]);
  });

  test("a wrong password is 401 in Keystone's error envelope", async () => {
    const res = await h.call("POST", "/identity/v3/auth/tokens", { body: passwordAuth("admin", "wrong"), token: null });
    expect(res.status).toBe(401);
    expect(breaches(res.body.error, facts.keystoneError)).toEqual([]);
    expect(res.body.error.code).toBe(401);
  });

  test("a malformed request is 400 in Keystone's envelope", async () => {
    const res = await h.call("POST", "/identity/v3/auth/tokens", { body: { auth: {} }, token: null });
    expect(res.status).toBe(400);
    expect(breaches(res.body.error, facts.keystoneError)).toEqual([]);
  });
});

describe("Nova", () => {
  test("a server at 2.47 has every documented field, its flavor embedded, its addresses typed", async () => {
    const id = h.server({ name: "node-1", floatingIP: true });
    const res = await h.call("GET", `/compute/v2.1/servers/${id}`, { headers: V247 });
    expect(res.status).toBe(200);
    expect(res.headers.get(facts.novaMicroversion.header)).toBe("compute 2.47");
    const s = res.body.server;
    expect(breaches(s, facts.server)).toEqual([]);
    expect(breaches(s.flavor, facts.embeddedFlavor)).toEqual([]);
    expect(s.flavor.id).toBeUndefined();
    for (const list of Object.values(s.addresses) as Record<string, unknown>[][]) {
      for (const a of list) expect(breaches(a, facts.serverAddress)).toEqual([]);
    }
  });

  test("before 2.47 a server's flavor is its id and links, and the version is the minimum", async () => {
    const id = h.server({ name: "node-1" });
    const res = await h.call("GET", `/compute/v2.1/servers/${id}`);
    expect(res.headers.get(facts.novaMicroversion.legacyHeader)).toBe(facts.novaMicroversion.min);
    expect(breaches(res.body.server.flavor, facts.flavorLink)).toEqual([]);
    expect(res.body.server.locked).toBeUndefined();
  });

  test("a flavor has every documented field", async () => {
    const id = [...h.emulator.world.flavors.keys()][0];
    const res = await h.call("GET", `/compute/v2.1/flavors/${id}`);
    expect(breaches(res.body.flavor, facts.flavor)).toEqual([]);
  });

  test.each([
    ["an unknown server", "GET", "/compute/v2.1/servers/nope", {}, 404],
    ["an unknown marker", "GET", "/compute/v2.1/servers/detail?marker=nope", {}, 400],
    [
      "an unsupported microversion",
      "GET",
      "/compute/v2.1/servers/detail",
      { "openstack-api-version": "compute 3.0" },
      406,
    ],
  ])("%s is answered in Nova's fault envelope", async (_, method, path, headers, status) => {
    const res = await h.call(method, path, { headers });
    expect(res.status).toBe(status);
    const name = facts.novaFaultNames[status] as string;
    expect(Object.keys(res.body)).toEqual([name]);
    expect(breaches(res.body[name], facts.novaFault)).toEqual([]);
  });

  test("pages by limit and marker, newest first, with servers_links on a full page only", async () => {
    for (let n = 0; n < 5; n++) {
      h.server({ name: `node-${n}` });
      h.clock.advance(1000);
    }
    const first = await h.call("GET", "/compute/v2.1/servers/detail?limit=2");
    expect(first.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-4", "node-3"]);
    const next = first.body.servers_links.find((l: { rel: string }) => l.rel === "next").href;
    const marker = new URL(next).searchParams.get("marker");
    expect(marker).toBe(first.body.servers[1].id);
    const last = await h.call("GET", `/compute/v2.1/servers/detail?limit=2&marker=${first.body.servers[1].id}`);
    expect(last.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-2", "node-1"]);
    const tail = await h.call("GET", `/compute/v2.1/servers/detail?limit=2&marker=${last.body.servers[1].id}`);
    expect(tail.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-0"]);
    expect(tail.body.servers_links).toBeUndefined();
    const all = await h.call("GET", "/compute/v2.1/servers/detail");
    expect(all.body.servers).toHaveLength(5);
    expect(all.body.servers.length).toBeLessThanOrEqual(facts.novaMaxLimit);
  });

  test("filters by name as a regular expression", async () => {
    h.server({ name: "node-1" });
    h.server({ name: "node-10" });
    const exact = await h.call("GET", `/compute/v2.1/servers/detail?name=${encodeURIComponent("^node-1$")}`);
    expect(exact.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-1"]);
    const loose = await h.call("GET", "/compute/v2.1/servers/detail?name=node-1");
    expect(loose.body.servers).toHaveLength(2);
  });
});

describe("Neutron", () => {
  test("a server's ports by device_id, with every documented field", async () => {
    const id = h.server({ name: "node-1", networks: ["private", "private-v6"] });
    const res = await h.call("GET", `/networking/v2.0/ports?device_id=${id}`);
    expect(res.body.ports).toHaveLength(2);
    for (const p of res.body.ports) {
      expect(breaches(p, facts.port)).toEqual([]);
      for (const f of p.fixed_ips) expect(breaches(f, facts.fixedIP)).toEqual([]);
      expect(p.device_id).toBe(id);
    }
  });

  test("a trunk's parent port carries trunk_details with its sub-ports", async () => {
    const id = h.server({ name: "node-1" });
    const [sub] = addTrunk(h.emulator.world, id, ["private-v6"]);
    const res = await h.call("GET", `/networking/v2.0/ports?device_id=${id}`);
    const details = res.body.ports[0].trunk_details;
    expect(breaches(details, facts.trunkDetails)).toEqual([]);
    for (const sp of details.sub_ports) expect(breaches(sp, facts.subPort)).toEqual([]);
    expect(details.sub_ports[0].port_id).toBe(sub?.id);
    const shown = await h.call("GET", `/networking/v2.0/ports/${sub?.id}`);
    expect(breaches(shown.body.port, facts.port)).toEqual([]);
  });

  test("an unknown port is 404 in Neutron's envelope, typed PortNotFound", async () => {
    const res = await h.call("GET", "/networking/v2.0/ports/nope");
    expect(res.status).toBe(404);
    expect(breaches(res.body.NeutronError, facts.neutronError)).toEqual([]);
    expect(res.body.NeutronError.type).toBe("PortNotFound");
  });
});

describe("every service", () => {
  test.each([["/compute/v2.1/servers/detail"], ["/networking/v2.0/ports"]])(
    "%s without a token, or with an expired one, is 401 in Keystone's envelope",
    async (path) => {
      const none = await h.call("GET", path, { token: null });
      expect(none.status).toBe(401);
      expect(breaches(none.body.error, facts.keystoneError)).toEqual([]);
      const token = await h.token();
      h.clock.advance(h.emulator.world.tokenLifetimeMs);
      expect((await h.call("GET", path, { token })).status).toBe(401);
    },
  );
});
