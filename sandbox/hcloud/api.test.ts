import { afterEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { RetryError } from "../../providers/errors.ts";
import { CloudApiError } from "../../providers/kit/http/errors.ts";
import { type Answer, createNetwork, createServer, type Harness, startHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness;
afterEach(() => h.stop());

const lbBody = { name: "lb-1", load_balancer_type: "lb11", location: "fsn1" };

describe("the error envelope", () => {
  test.each<[string, (h: Harness) => Promise<Answer>, number, string, unknown]>([
    ["a wrong token", (h) => h.call("GET", "/servers", undefined, "nope"), 401, "unauthorized", null],
    ["an unknown ID", (h) => h.call("GET", "/servers/999"), 404, "not_found", null],
    ["an unknown endpoint", (h) => h.call("GET", "/volcanoes"), 404, "not_found", null],
    ["a body that is not JSON", (h) => h.call("POST", "/load_balancers", "{nope"), 400, "json_error", null],
    [
      "a body missing fields",
      (h) => h.call("POST", "/load_balancers", { location: "fsn1" }),
      400,
      "invalid_input",
      {
        fields: [
          { name: "name", messages: [expect.any(String)] },
          { name: "load_balancer_type", messages: [expect.any(String)] },
        ],
      },
    ],
    [
      "a reserved label prefix",
      (h) => h.call("POST", "/load_balancers", { ...lbBody, labels: { "hetzner.cloud/x": "1" } }),
      400,
      "invalid_input",
      { fields: [{ name: "labels", messages: [expect.stringContaining("reserved")] }] },
    ],
    [
      "a name already taken",
      async (h) => {
        await h.call("POST", "/load_balancers", lbBody);
        return h.call("POST", "/load_balancers", lbBody);
      },
      409,
      "uniqueness_error",
      { fields: [{ name: "name" }] },
    ],
    [
      "a 101st route",
      async (h) => {
        const id = await createNetwork(h);
        for (let i = 0; i < 100; i++) {
          const added = await h.call("POST", `/networks/${id}/actions/add_route`, {
            destination: `10.100.${i}.0/24`,
            gateway: "10.0.1.2",
          });
          if (added.status !== 201) throw new Error(JSON.stringify(added.body));
        }
        return h.call("POST", `/networks/${id}/actions/add_route`, {
          destination: "10.101.0.0/24",
          gateway: "10.0.1.2",
        });
      },
      403,
      "resource_limit_exceeded",
      { limits: [{ name: "routes" }] },
    ],
    ["a wrong method", (h) => h.call("PUT", "/actions"), 405, "method_not_allowed", null],
  ])("%s", async (_, run, status, code, details) => {
    h = startHarness();
    const answer = await run(h);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toEqual({ code, message: expect.any(String), details });
  });
});

describe("rate limit", () => {
  test("every answer carries RateLimit-Limit, -Remaining and -Reset; the bucket refills at limit per hour", async () => {
    h = startHarness();
    const start = h.clock.now();
    const first = await h.call("GET", "/locations");
    expect(first.headers.get("ratelimit-limit")).toBe("3600");
    expect(first.headers.get("ratelimit-remaining")).toBe("3599");
    expect(first.headers.get("ratelimit-reset")).toBe(String(Math.ceil(start / 1000) + 1));
    const failed = await h.call("GET", "/servers/404");
    expect(failed.headers.get("ratelimit-remaining")).toBe("3598");
    h.clock.advance(1000);
    expect((await h.call("GET", "/locations")).headers.get("ratelimit-remaining")).toBe("3598");
  });

  test("a spent bucket answers 429 rate_limit_exceeded with the headers, and the control API still answers", async () => {
    h = startHarness({ rateLimit: { limit: 2, perHour: 3600 } });
    await h.call("GET", "/locations");
    await h.call("GET", "/locations");
    const limited = await h.call("GET", "/locations");
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limit_exceeded");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("ratelimit-reset")) * 1000).toBeGreaterThan(h.clock.now());
    expect((await h.call("GET", "/_emulator/rate-limit")).status).toBe(200);
    h.clock.advance(1000);
    expect((await h.call("GET", "/locations")).status).toBe(200);
  });

  test("the kit's client waits out a small bucket on the shared clock and gets every answer", async () => {
    h = startHarness();
    expect((await h.call("PUT", "/_emulator/rate-limit", { limit: 3, perHour: 3600 })).status).toBe(200);
    const client = h.client();
    const answer = v.object({ locations: v.array(v.object({ name: v.string() })) });
    for (let i = 0; i < 8; i++) {
      const got = await client.request(ctx, { operation: "listLocations", method: "GET", path: "/locations", answer });
      expect(got.locations).toHaveLength(6);
    }
    const stats = h.emulator.calls.snapshot().byRoute["GET /v1/locations"];
    console.log(
      `8 answers took ${stats?.calls} calls (${stats?.failed} answered 429) and ${(h.clock.waits.reduce((a, b) => a + b, 0) / 1000).toFixed(1)}s of waiting`,
    );
    expect(stats?.calls).toBeGreaterThanOrEqual(8);
  });
});

describe("faults", () => {
  test.each([
    ["locked", 423],
    ["conflict", 409],
    ["bad_gateway", 502],
    ["timeout", 504],
    ["server_error", 500],
  ])("failNext %s answers %d with the code, then the call goes through", async (code, status) => {
    h = startHarness();
    const set = await h.call("PUT", "/_emulator/faults", {
      failNext: [{ method: "post", pathPrefix: "/load_balancers", code, count: 1 }],
    });
    expect(set.status).toBe(200);
    const failed = await h.call("POST", "/load_balancers", lbBody);
    expect([failed.status, failed.body.error.code]).toEqual([status, code]);
    expect(h.emulator.world.loadBalancers.size).toBe(0);
    expect((await h.call("POST", "/load_balancers", lbBody)).status).toBe(201);
    expect(h.emulator.calls.snapshot().byRoute["POST /v1/load_balancers"]).toEqual({ calls: 2, failed: 1 });
  });

  test("the kit's client retries conflict (declared retryable) and gets the answer; a lasting 502 becomes a CloudApiError with the code", async () => {
    h = startHarness();
    await h.call("PUT", "/_emulator/faults", { failNext: [{ pathPrefix: "/locations", code: "conflict", count: 2 }] });
    const answer = v.object({ locations: v.array(v.unknown()) });
    const req = { operation: "listLocations", method: "GET", path: "/locations", answer } as const;
    // As the hcloud provider will declare them: hcloud's codes for "nothing was done, try again".
    const retryable = ({ code }: { code: string }) => code === "conflict" || code === "locked";
    expect((await h.client({ retry: { retryable } }).request(ctx, req)).locations).toHaveLength(6);
    expect(h.emulator.calls.count("GET /v1/locations")).toBe(3);
    await h.call("PUT", "/_emulator/faults", {
      failNext: [{ pathPrefix: "/locations", code: "bad_gateway", count: 100 }],
    });
    const err = await h
      .client({ retry: { maxRetries: 2 } })
      .request(ctx, req)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CloudApiError);
    expect((err as CloudApiError).code).toBe("bad_gateway");
    expect(err).not.toBeInstanceOf(RetryError);
  });

  test("an error rate of 1 answers server_error; latency is slept before the answer", async () => {
    const slept: number[] = [];
    h = startHarness({ sleep: async (ms) => void slept.push(ms) });
    await h.call("PUT", "/_emulator/faults", { errorRate: 1, latencyMs: 250 });
    const answer = await h.call("GET", "/locations");
    expect([answer.status, answer.body.error.code]).toEqual([500, "server_error"]);
    expect(slept).toEqual([250]);
  });

  test.each([
    [{ errorRate: 2 }, "errorRate"],
    [{ failNext: [{ pathPrefix: "servers", code: "locked", count: 1 }] }, "failNext[0].pathPrefix"],
    [{ failNext: [{ pathPrefix: "/servers", code: "teapot", count: 1 }] }, "failNext[0].code"],
    [{ latency: 5 }, "latency"],
  ])("a bad fault configuration %j is invalid_input naming %s", async (body, field) => {
    h = startHarness();
    const answer = await h.call("PUT", "/_emulator/faults", body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.fields.map((f: { name: string }) => f.name)).toEqual([field]);
  });
});

describe("servers", () => {
  test("the API's current shape: no datacenter, IPv6 as a /64, a null ipv4 when disabled; legacyDatacenter brings it back", async () => {
    h = startHarness();
    const id = await createServer(h, "node-1", { location: "hel1", public_net: { enable_ipv4: false } });
    const server = (await h.call("GET", `/servers/${id}`)).body.server;
    expect(server.datacenter).toBeUndefined();
    expect(server.location).toMatchObject({ name: "hel1", network_zone: "eu-central" });
    expect(server.public_net.ipv4).toBeNull();
    expect(server.public_net.ipv6.ip).toMatch(/^2001:db8:[0-9a-f]+::\/64$/);
    await h.call("PUT", "/_emulator/settings", { legacyDatacenter: true });
    expect((await h.call("GET", `/servers/${id}`)).body.server.datacenter).toMatchObject({ name: "hel1-dc2" });
  });

  test("a server on a network has its private_net entry; status filter; poweroff makes it off", async () => {
    h = startHarness();
    const network = await createNetwork(h);
    const id = await createServer(h, "node-1", { networks: [network] });
    const server = (await h.call("GET", `/servers/${id}`)).body.server;
    expect(server.private_net).toEqual([
      { network, ip: "10.0.1.2", alias_ips: [], mac_address: expect.stringMatching(/^86:00:00:/) },
    ]);
    expect((await h.call("POST", `/servers/${id}/actions/poweroff`)).status).toBe(201);
    expect((await h.call("GET", "/servers?status=off")).body.servers.map((s: { id: number }) => s.id)).toEqual([id]);
    expect((await h.call("GET", "/servers?status=running")).body.servers).toEqual([]);
  });
});
