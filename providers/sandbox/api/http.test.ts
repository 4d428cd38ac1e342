import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createMachines } from "../../../sandbox/cloud/fixtures.ts";
import { findInCauseChain, RetryError } from "../../errors.ts";
import { rejection } from "../../testing.ts";
import { startTestCloud, type TestCloud } from "../testing.ts";
import { SandboxApiError } from "./client.ts";
import { retryAfterOf, SandboxHttpApi } from "./http.ts";

let t: TestCloud & { release(): void };
beforeEach(() => {
  t = startTestCloud();
});
afterEach(async () => {
  t.release();
  await t.stop();
});

const spec = {
  cluster: "kubernetes",
  serviceUID: "uid-1",
  serviceNamespace: "default",
  serviceName: "web",
  ports: [{ name: "http", protocol: "TCP" as const, port: 80, nodePort: 30080 }],
  nodes: ["node-1"],
};

describe("SandboxHttpApi", () => {
  test("lists machines page by page and filters by name", async () => {
    createMachines(t.cloud.state, 5);
    const first = await t.api.listMachines(t.ctx, { page: 1, perPage: 2 });
    expect(first.machines.map((m) => m.name)).toEqual(["node-1", "node-2"]);
    expect(first.nextPage).toBe(2);
    const last = await t.api.listMachines(t.ctx, { page: 3, perPage: 2 });
    expect(last).toMatchObject({ machines: [{ name: "node-5" }], nextPage: null });
    const named = await t.api.listMachines(t.ctx, { page: 1, perPage: 1, name: "node-3" });
    expect(named.machines.map((m) => m.name)).toEqual(["node-3"]);
  });

  test("gets a machine by ID, and undefined for an unknown ID", async () => {
    const [m] = createMachines(t.cloud.state, 1);
    expect(await t.api.getMachine(t.ctx, m!.id)).toMatchObject({ id: m!.id, name: "node-1", state: "running" });
    expect(await t.api.getMachine(t.ctx, "m-missing")).toBeUndefined();
  });

  test("load balancers: put is idempotent, nodes change alone, delete answers whether there was one", async () => {
    expect(await t.api.getLoadBalancer(t.ctx, "a1")).toBeUndefined();
    const created = await t.api.putLoadBalancer(t.ctx, "a1", spec);
    expect(await t.api.putLoadBalancer(t.ctx, "a1", spec)).toEqual(created);
    const moved = await t.api.setLoadBalancerNodes(t.ctx, "a1", ["node-2"]);
    expect(moved).toMatchObject({ address: created.address, ports: spec.ports, nodes: ["node-2"] });
    expect(await t.api.getLoadBalancer(t.ctx, "a1")).toEqual(moved);
    expect(await t.api.deleteLoadBalancer(t.ctx, "a1")).toBe(true);
    expect(await t.api.deleteLoadBalancer(t.ctx, "a1")).toBe(false);
  });

  test("setting nodes of a missing load balancer fails with the cloud's 404", async () => {
    const err = await rejection(() => t.api.setLoadBalancerNodes(t.ctx, "a1", []));
    expect(err.message).toStartWith("sandbox/api.setLoadBalancerNodes: 404 NotFound:");
    expect(findInCauseChain(err, SandboxApiError)?.status).toBe(404);
  });

  test("routes: create (twice is fine), list by cluster, delete answers whether there was one", async () => {
    const route = { name: "r1", cluster: "k", targetNode: "node-1", destinationCIDR: "10.244.1.0/24", nameHint: "u" };
    await t.api.createRoute(t.ctx, route);
    await t.api.createRoute(t.ctx, route);
    expect(await t.api.listRoutes(t.ctx, "k")).toEqual([route]);
    expect(await t.api.listRoutes(t.ctx, "other")).toEqual([]);
    expect(await t.api.deleteRoute(t.ctx, "r1")).toBe(true);
    expect(await t.api.deleteRoute(t.ctx, "r1")).toBe(false);
  });

  test.each([
    [undefined, 1000],
    [7, 7000],
  ])("429 with Retry-After %p s becomes a RetryError of %p ms", async (seconds, ms) => {
    const rule = { pathPrefix: "/v1/machines", status: 429, count: 1 };
    t.cloud.faults.set({ failNext: [seconds === undefined ? rule : { ...rule, retryAfterSeconds: seconds }] });
    const err = await rejection(() => t.api.listMachines(t.ctx, { page: 1, perPage: 10 }));
    expect(err).toBeInstanceOf(RetryError);
    expect((err as RetryError).retryAfterMs).toBe(ms);
    expect(err.message).toStartWith("sandbox/api.listMachines: the cloud is rate limiting");
    expect(findInCauseChain(err, SandboxApiError)?.status).toBe(429);
  });

  test("the cloud's own rate limit surfaces as a RetryError too", async () => {
    t.cloud.faults.set({ rateLimit: { qps: 0.5, burst: 1 } });
    await t.api.listRoutes(t.ctx, "k");
    const err = await rejection(() => t.api.listRoutes(t.ctx, "k"));
    // The bucket refills on the real clock, so on a slow machine the wait may already be shorter than 2s.
    expect(findInCauseChain(err, RetryError)?.retryAfterMs).toBeOneOf([1000, 2000]);
  });

  test("500 is wrapped with the operation prefix and keeps the cloud's error as cause", async () => {
    t.cloud.faults.set({ errorRate: 1 });
    const err = await rejection(() => t.api.getMachine(t.ctx, "m-1"));
    expect(err.message).toBe("sandbox/api.getMachine: 500 InternalError: injected by errorRate");
    expect(err).not.toBeInstanceOf(RetryError);
    expect(findInCauseChain(err, SandboxApiError)).toMatchObject({ status: 500, code: "InternalError" });
  });

  test("a wrong token is a 401 error, not 'not found'", async () => {
    const api = new SandboxHttpApi({ url: t.cloud.url, token: "wrong", timeoutMs: 30_000 });
    const err = await rejection(() => api.getMachine(t.ctx, "m-1"));
    expect(err.message).toBe("sandbox/api.getMachine: 401 Unauthorized: missing or wrong bearer token");
  });

  test("a call that gets no answer in time fails with the timeout", async () => {
    const api = new SandboxHttpApi({ url: t.cloud.url, token: t.cloud.token, timeoutMs: 50 });
    t.cloud.faults.set({ latencyMs: 1 }); // held by the test cloud until release()
    const err = await rejection(() => api.listRoutes(t.ctx, "k"));
    expect(err.message).toBe("sandbox/api.listRoutes: no answer within 50ms");
  });

  test("aborting the caller's signal ends the call", async () => {
    t.cloud.faults.set({ latencyMs: 1 });
    const controller = new AbortController();
    const pending = rejection(() => t.api.listRoutes({ signal: controller.signal }, "k"));
    controller.abort();
    const err = await pending;
    expect(err.message).toStartWith("sandbox/api.listRoutes: ");
    expect(err.message).toContain("aborted");
  });

  test("a connection failure is wrapped with the operation prefix", async () => {
    const url = t.cloud.url;
    await t.stop();
    const api = new SandboxHttpApi({ url, token: "x", timeoutMs: 30_000 });
    const err = await rejection(() => api.listRoutes(t.ctx, "k"));
    expect(err.message).toStartWith(`sandbox/api.listRoutes: GET ${url}/v1/routes?cluster=k: `);
    t = startTestCloud();
  });
});

describe("retryAfterOf", () => {
  const now = () => Date.parse("2026-01-01T00:00:00Z");
  test.each([
    [null, 1000],
    ["", 1000],
    ["3", 3000],
    ["0", 0],
    ["Thu, 01 Jan 2026 00:00:05 GMT", 5000],
    ["Wed, 31 Dec 2025 23:59:00 GMT", 0],
    ["soon", 1000],
  ])("%p → %p ms", (header, ms) => {
    expect(retryAfterOf(header, now)).toBe(ms);
  });
});
