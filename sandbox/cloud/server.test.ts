import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createMachines } from "./fixtures.ts";
import { type SimulatedCloud, startSimulatedCloud } from "./server.ts";

let cloud: SimulatedCloud;
const clock = { ms: 0 };
const slept: number[] = [];

beforeEach(() => {
  clock.ms = Date.parse("2026-01-01T00:00:00Z");
  slept.length = 0;
  cloud = startSimulatedCloud({
    token: "secret",
    seed: 3,
    now: () => clock.ms,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
});
afterEach(() => cloud.stop());

async function call(method: string, path: string, body?: unknown, token = "secret") {
  const res = await fetch(`${cloud.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const lbBody = {
  cluster: "kubernetes",
  serviceUID: "u1",
  serviceNamespace: "default",
  serviceName: "web",
  ports: [{ name: "http", protocol: "TCP", port: 80, nodePort: 30080 }],
  nodes: ["node-2", "node-1"],
};

describe("the REST API", () => {
  test("listens on loopback with a random port", () => {
    expect(cloud.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test.each([
    ["no token", undefined],
    ["a wrong token", "nope"],
  ])("answers 401 with a JSON error for %s", async (_, token) => {
    const res = await fetch(`${cloud.url}/v1/machines`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toEqual({ error: { code: "Unauthorized", message: "missing or wrong bearer token" } });
  });

  test("machines: create, get, list with filter and pages, patch, delete", async () => {
    const created = await call("POST", "/v1/machines", { name: "web-1", zone: "zone-b", instanceType: "sb-large" });
    expect(created.status).toBe(201);
    const id = created.body.machine.id;
    expect((await call("GET", `/v1/machines/${id}`)).body.machine).toEqual(created.body.machine);
    createMachines(cloud.state, 3);
    const page = await call("GET", "/v1/machines?page=2&perPage=3");
    expect(page.body.machines.map((m: { name: string }) => m.name)).toEqual(["node-3"]);
    expect(page.body.pagination).toEqual({ page: 2, perPage: 3, total: 4, nextPage: null });
    const byName = await call("GET", "/v1/machines?name=node-2");
    expect(byName.body.machines.map((m: { name: string }) => m.name)).toEqual(["node-2"]);
    expect(created.body.machine.podCIDRs).toEqual([]);
    const patched = await call("PATCH", `/v1/machines/${id}`, { state: "stopped", podCIDRs: ["10.244.1.0/24"] });
    expect(patched.body.machine).toMatchObject({ state: "stopped", zone: "zone-b", podCIDRs: ["10.244.1.0/24"] });
    expect((await call("DELETE", `/v1/machines/${id}`)).status).toBe(204);
    expect(await call("GET", `/v1/machines/${id}`)).toMatchObject({
      status: 404,
      body: { error: { code: "NotFound" } },
    });
  });

  test("in-process changes are visible over HTTP at once, and the other way round", async () => {
    const [m] = createMachines(cloud.state, 1);
    cloud.state.updateMachine(m!.id, { state: "stopped" });
    expect((await call("GET", `/v1/machines/${m!.id}`)).body.machine.state).toBe("stopped");
    await call("PUT", "/v1/load-balancers/a1", lbBody);
    expect(cloud.state.getLoadBalancer("a1")?.nodes).toEqual(["node-1", "node-2"]);
  });

  test("load balancers: PUT creates (201) then is idempotent (200), PATCH changes nodes, DELETE is 404 when gone", async () => {
    const first = await call("PUT", "/v1/load-balancers/a1", lbBody);
    expect(first.status).toBe(201);
    expect(first.body.loadBalancer).toMatchObject({ name: "a1", address: "203.0.113.1", nodes: ["node-1", "node-2"] });
    const again = await call("PUT", "/v1/load-balancers/a1", lbBody);
    expect(again).toMatchObject({ status: 200, body: first.body });
    const patched = await call("PATCH", "/v1/load-balancers/a1", { nodes: ["node-3"] });
    expect(patched.body.loadBalancer).toMatchObject({ nodes: ["node-3"], address: "203.0.113.1" });
    expect((await call("GET", "/v1/load-balancers")).body.loadBalancers).toHaveLength(1);
    expect((await call("GET", "/v1/load-balancers?cluster=other")).body.loadBalancers).toEqual([]);
    expect((await call("DELETE", "/v1/load-balancers/a1")).status).toBe(204);
    expect((await call("DELETE", "/v1/load-balancers/a1")).status).toBe(404);
    expect((await call("GET", "/v1/load-balancers/a1")).status).toBe(404);
  });

  test("load balancers carry their options, and show them", async () => {
    const options = {
      algorithm: "least-connections",
      healthCheck: { intervalMs: 30_000, retries: 5 },
      proxyProtocol: true,
      allowedCIDRs: ["10.0.0.0/8", "2001:db8::/32"],
      portProtocols: { "80": "http" },
    };
    expect((await call("PUT", "/v1/load-balancers/a1", { ...lbBody, options })).body.loadBalancer.options).toEqual(
      options,
    );
    expect((await call("GET", "/v1/load-balancers/a1")).body.loadBalancer.options).toEqual(options);
  });

  test("routes: create, list by cluster, delete", async () => {
    const route = { name: "r-1", cluster: "k", targetNode: "node-1", destinationCIDR: "fd00:10:244:1::/64" };
    expect((await call("POST", "/v1/routes", route)).status).toBe(201);
    expect((await call("POST", "/v1/routes", route)).status).toBe(200);
    expect((await call("GET", "/v1/routes?cluster=k")).body.routes).toEqual([{ ...route, nameHint: "" }]);
    expect((await call("DELETE", "/v1/routes/r-1")).status).toBe(204);
    expect((await call("DELETE", "/v1/routes/r-1")).status).toBe(404);
  });

  test.each([
    ["POST", "/v1/machines", { zone: 3, extra: true }, ["name: ", "zone: ", "extra: "]],
    ["PUT", "/v1/load-balancers/a1", { ...lbBody, ports: [] }, ["ports: a load balancer needs at least one port"]],
    [
      "PUT",
      "/v1/load-balancers/a1",
      {
        ...lbBody,
        options: {
          algorithm: "fastest",
          healthCheck: { intervalMs: 10, retries: 0 },
          allowedCIDRs: ["banana"],
          portProtocols: { http: "http", "80": "quic" },
          colour: "red",
        },
      },
      [
        "options.algorithm: ",
        "options.healthCheck.intervalMs: ",
        "options.healthCheck.retries: ",
        "options.allowedCIDRs.0: not an IPv4 or IPv6 CIDR",
        "options.portProtocols.http: keys are port numbers",
        "options.portProtocols.80: ",
        "options.colour: unknown field",
      ],
    ],
    ["POST", "/v1/routes", { name: "r", cluster: "k", targetNode: "n", destinationCIDR: "x" }, ["not an IPv4"]],
    ["POST", "/v1/machines", { name: "p", podCIDRs: ["10.0.0.0/24", "x"] }, ["podCIDRs.1: not an IPv4 or IPv6 CIDR"]],
    [
      "PATCH",
      "/v1/machines/m-1",
      { podCIDRs: ["10.0.0.0/24", "10.0.1.0/24"] },
      ["podCIDRs: at most one pod CIDR per IP family"],
    ],
    ["PUT", "/v1/faults", { errorRate: 2 }, ["errorRate: "]],
  ])("%s %s with a bad body answers 400 naming every problem", async (method, path, body, parts) => {
    const res = await call(method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("InvalidRequest");
    for (const part of parts) expect(res.body.error.message).toContain(part);
  });

  test("answers 400 for malformed JSON and bad paging, 404 for unknown paths, 405 for wrong methods", async () => {
    expect((await call("POST", "/v1/machines", "{nope")).body.error.code).toBe("InvalidJSON");
    expect((await call("GET", "/v1/machines?perPage=0")).status).toBe(400);
    expect((await call("GET", "/v2/things")).status).toBe(404);
    const wrong = await call("POST", "/v1/load-balancers/a1", {});
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.message).toContain("GET, PUT, PATCH, DELETE");
  });
});

describe("faults and call counters", () => {
  test("counts calls by method and route pattern, not by concrete path; DELETE resets", async () => {
    const [m1, m2] = createMachines(cloud.state, 2);
    await call("GET", `/v1/machines/${m1!.id}`);
    await call("GET", `/v1/machines/${m2!.id}`);
    await call("GET", "/v1/machines/missing");
    await call("GET", "/v1/faults");
    const { calls } = (await call("GET", "/v1/calls")).body;
    expect(calls).toEqual({ total: 3, failed: 1, byRoute: { "GET /v1/machines/:id": { calls: 3, failed: 1 } } });
    expect(cloud.calls.count("GET /v1/machines/:id")).toBe(3);
    expect((await call("DELETE", "/v1/calls")).status).toBe(204);
    expect(cloud.calls.snapshot().total).toBe(0);
  });

  test("PUT /v1/faults takes effect at once; the control endpoints themselves never fail", async () => {
    const put = await call("PUT", "/v1/faults", { errorRate: 1, latencyMs: 25 });
    expect(put.body.faults).toEqual({ latencyMs: 25, errorRate: 1, rateLimit: null, failNext: [] });
    const failed = await call("GET", "/v1/machines");
    expect(failed).toMatchObject({ status: 500, body: { error: { code: "InternalError" } } });
    expect(slept).toEqual([25]);
    expect((await call("GET", "/v1/faults")).status).toBe(200);
    expect((await call("GET", "/v1/calls")).status).toBe(200);
  });

  test("rate limit answers 429 with Retry-After in seconds", async () => {
    cloud.faults.set({ rateLimit: { qps: 1, burst: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", "/v1/routes")).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await call("GET", "/v1/routes");
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.body.error.code).toBe("RateLimited");
    clock.ms += 1000;
    expect((await call("GET", "/v1/routes")).status).toBe(200);
  });

  test("failNext answers the given status for the next matching calls, with GET /v1/faults showing what is left", async () => {
    await call("PUT", "/v1/faults", { failNext: [{ method: "GET", pathPrefix: "/v1/routes", status: 503, count: 2 }] });
    expect((await call("GET", "/v1/routes")).status).toBe(503);
    expect((await call("GET", "/v1/faults")).body.faults.failNext).toEqual([
      { method: "GET", pathPrefix: "/v1/routes", status: 503, count: 1 },
    ]);
    expect((await call("GET", "/v1/routes")).status).toBe(503);
    expect((await call("GET", "/v1/routes")).status).toBe(200);
  });
});
