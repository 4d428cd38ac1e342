import { afterEach, describe, expect, test } from "bun:test";
import { captureLogger } from "../../../platform/testing/logger.ts";
import { createNetwork, createServer, type Harness } from "../../../sandbox/hcloud/testing.ts";
import { CloudApiSchemaError } from "../../kit/http/errors.ts";
import { startTestServer, type TestServer } from "../../kit/http/testing.ts";
import { rejection } from "../../testing.ts";
import { createHcloudTransport } from "./client.ts";
import { HcloudServers } from "./servers.ts";
import { type ApiHarness, startApiHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness | undefined;
let scripted: TestServer | undefined;
afterEach(async () => {
  await h?.stop();
  await scripted?.stop();
  h = undefined;
  scripted = undefined;
});

function setUp(options: Parameters<typeof startApiHarness>[0] = {}): ApiHarness & { servers: HcloudServers } {
  const started = startApiHarness(options);
  h = started.h;
  return { ...started, servers: new HcloudServers(started.t) };
}

/** A server answer from a script, for shapes the emulator does not send. */
function scriptedServers(server: unknown): HcloudServers {
  scripted = startTestServer();
  scripted.answer(() => Response.json({ server }));
  return new HcloudServers(
    createHcloudTransport({ token: "t", endpoint: scripted.url, rateLimit: { qps: 0, burst: 1 } }),
  );
}

describe("hcloud servers against the emulator", () => {
  test("reads a server's type, location, public and private addresses", async () => {
    const { h, servers } = setUp();
    const network = await createNetwork(h);
    const id = await createServer(h, "node-1", { location: "hel1", networks: [network], labels: { role: "worker" } });
    const server = await servers.getServer(ctx, id);
    expect(server).toEqual({
      id,
      name: "node-1",
      status: "running",
      type: "cx22",
      location: "hel1",
      networkZone: "eu-central",
      ipv4: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
      ipv6Net: expect.stringMatching(/::\/64$/),
      privateNets: [{ network, ip: "10.0.1.2" }],
      labels: { role: "worker" },
    });
  });

  describe("a private_net entry without ip, as the API document allows, is left out of its server alone", () => {
    const cases = [
      { name: "listServers: every server listed, the odd one without the entry", call: "list" },
      { name: "getServer: the server, without the entry", call: "get" },
    ] as const;
    test.each(cases)("$name", async (c) => {
      const started = setUp();
      const { logger, logs } = captureLogger();
      const servers = new HcloudServers({ ...started.t, logger });
      const network = await createNetwork(started.h);
      const odd = await createServer(started.h, "odd", { networks: [network] });
      await createServer(started.h, "plain", { networks: [network] });
      // The shape the document allows and the emulator sends when told: an attachment without its ip.
      started.h.emulator.world.servers
        .get(odd)
        ?.private_net.push({ network: 77, alias_ips: [], mac_address: "86:00:00:00:00:01" });
      const got = c.call === "list" ? await servers.listServers(ctx) : [await servers.getServer(ctx, odd)];
      const byName = new Map(got.map((server) => [server?.name, server?.privateNets]));
      expect(byName.get("odd")).toEqual([{ network, ip: "10.0.1.2" }]);
      if (c.call === "list") expect(byName.get("plain")).toEqual([{ network, ip: "10.0.1.3" }]);
      const op = c.call === "list" ? "listServers" : "getServer";
      expect(logs.filter((l) => l.type === "warn").map((l) => l.message)).toEqual([
        `hcloud/api.${op}: server ${odd} (odd): left out private_net[1]: ip: Invalid key: Expected "ip" but received undefined`,
      ]);
    });
  });

  test("a server that is gone is undefined, not an error", async () => {
    const { servers } = setUp();
    expect(await servers.getServer(ctx, 424242)).toBeUndefined();
  });

  test.each([
    ["without datacenter (the API since 2026)", false],
    ["with the deprecated datacenter", true],
  ])("reads a server %s", async (_, legacyDatacenter) => {
    const { h, servers } = setUp({ legacyDatacenter });
    const id = await createServer(h, "node-1", { location: "nbg1" });
    expect((await servers.getServer(ctx, id))?.location).toBe("nbg1");
  });

  test("lists by name and by label selector, in pages of 50", async () => {
    const { h, servers } = setUp();
    for (let i = 0; i < 60; i++) {
      await createServer(h, `node-${i}`, { labels: { role: i % 2 === 0 ? "worker" : "control-plane" } });
    }
    h.emulator.calls.reset();
    expect((await servers.listServers(ctx)).length).toBe(60);
    expect(h.emulator.calls.count("GET /v1/servers")).toBe(2);
    expect((await servers.listServers(ctx, { name: "node-7" })).map((s) => s.name)).toEqual(["node-7"]);
    const workers = await servers.listServers(ctx, { labelSelector: "role=worker" });
    expect(workers.length).toBe(30);
    expect(workers.every((s) => s.labels.role === "worker")).toBe(true);
  });

  test("a powered-off server says off", async () => {
    const { h, servers } = setUp();
    const id = await createServer(h, "node-1");
    await h.call("POST", `/servers/${id}/actions/poweroff`);
    expect((await servers.getServer(ctx, id))?.status).toBe("off");
  });
});

describe("hcloud server answers in other shapes", () => {
  const base = { id: 7, name: "n", status: "running", server_type: { name: "cpx11" } };
  test.each([
    ["only the deprecated datacenter", { datacenter: { name: "fsn1-dc14", location: { name: "fsn1" } } }, "fsn1"],
    ["neither location nor datacenter", {}, ""],
    ["fields the schema does not know", { location: { name: "ash", surprise: [1] }, brand_new: { x: 1 } }, "ash"],
  ])("tolerates %s", async (_, extra, location) => {
    const server = await scriptedServers({ ...base, ...extra }).getServer(ctx, 7);
    expect(server?.location).toBe(location);
    expect(server?.privateNets).toEqual([]);
  });

  test("an answer without the server type names the field", async () => {
    const err = await rejection(() => scriptedServers({ id: 7, name: "n", status: "running" }).getServer(ctx, 7));
    expect(err).toBeInstanceOf(CloudApiSchemaError);
    expect(err.message).toContain("server.server_type");
  });
});
