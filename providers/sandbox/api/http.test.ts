import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { createMachines } from "../../../sandbox/cloud/fixtures.ts";
import { findInCauseChain, RetryError } from "../../errors.ts";
import { CloudApiError, CloudApiSchemaError } from "../../kit/http/errors.ts";
import { steppingClock } from "../../kit/http/testing.ts";
import { rejection } from "../../testing.ts";
import { startTestCloud, type TestCloud, testToken } from "../testing.ts";
import { type HttpApiOptions, SandboxHttpApi } from "./http.ts";

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
    expect(findInCauseChain(err, CloudApiError)?.status).toBe(404);
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
    expect(findInCauseChain(err, CloudApiError)?.status).toBe(429);
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
    expect(findInCauseChain(err, CloudApiError)).toMatchObject({ status: 500, code: "InternalError" });
  });

  test("a wrong token is a 401 error, not 'not found'", async () => {
    const api = new SandboxHttpApi({ url: t.cloud.url, token: "wrong", timeoutMs: 30_000, retry: { maxRetries: 0 } });
    const err = await rejection(() => api.getMachine(t.ctx, "m-1"));
    expect(err.message).toBe("sandbox/api.getMachine: 401 Unauthorized: missing or wrong bearer token");
  });

  test("a call that gets no answer in time fails with the timeout", async () => {
    const api = new SandboxHttpApi({ url: t.cloud.url, token: t.cloud.token, timeoutMs: 50, retry: { maxRetries: 0 } });
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
    const api = new SandboxHttpApi({ url, token: "x", timeoutMs: 30_000, retry: { maxRetries: 0 } });
    const err = await rejection(() => api.listRoutes(t.ctx, "k"));
    expect(err.message).toStartWith(`sandbox/api.listRoutes: GET ${url}/v1/routes?cluster=k: `);
    t = startTestCloud();
  });
});

describe("SandboxHttpApi with the kit's retries", () => {
  /** A client of the test cloud that retries, waiting on a clock that records instead of sleeping. */
  const retrying = (options: Partial<HttpApiOptions> = {}) => {
    const clock = steppingClock();
    const registry = new Registry();
    const api = new SandboxHttpApi({
      url: t.cloud.url,
      token: testToken,
      timeoutMs: 30_000,
      metrics: registry,
      ...clock,
      ...options,
    });
    return { api, clock, registry };
  };

  test("a 503 the cloud stops sending is retried away, and the call succeeds", async () => {
    createMachines(t.cloud.state, 1);
    t.cloud.faults.set({ failNext: [{ method: "GET", pathPrefix: "/v1/machines", status: 503, count: 2 }] });
    const { api, clock } = retrying();
    expect((await api.listMachines(t.ctx, { page: 1, perPage: 10 })).machines).toHaveLength(1);
    expect(clock.waits).toHaveLength(2);
  });

  test("a 429's Retry-After is waited, then the call goes through", async () => {
    t.cloud.faults.set({ failNext: [{ pathPrefix: "/v1/routes", status: 429, count: 1, retryAfterSeconds: 3 }] });
    const { api, clock } = retrying();
    expect(await api.listRoutes(t.ctx, "k")).toEqual([]);
    expect(clock.waits).toEqual([3000]);
  });

  test("a route create is repeated after a 500, since creating an identical route again succeeds", async () => {
    t.cloud.faults.set({ failNext: [{ method: "POST", pathPrefix: "/v1/routes", status: 500, count: 1 }] });
    const route = { name: "r1", cluster: "k", targetNode: "n", destinationCIDR: "10.244.1.0/24", nameHint: "" };
    const { api } = retrying();
    expect(await api.createRoute(t.ctx, route)).toEqual(route);
    expect(t.cloud.calls.count("POST /v1/routes")).toBe(2);
  });

  test("every call is recorded in cloudprovider_sandbox_api_* by operation", async () => {
    createMachines(t.cloud.state, 1);
    const { api, registry } = retrying({ retry: { maxRetries: 0 } });
    await api.listMachines(t.ctx, { page: 1, perPage: 10 });
    await api.getMachine(t.ctx, "m-missing");
    t.cloud.faults.set({ errorRate: 1 });
    await rejection(() => api.listRoutes(t.ctx, "k"));
    const text = await registry.metrics();
    expect(text).toContain('cloudprovider_sandbox_api_request_duration_seconds_count{request="listMachines"} 1');
    expect(text).toContain('cloudprovider_sandbox_api_request_duration_seconds_count{request="getMachine"} 1');
    expect(text).toContain('cloudprovider_sandbox_api_request_errors{request="listRoutes"} 1');
  });

  test("an answer that breaks the documented shape is an error naming the field", async () => {
    const broken: typeof fetch = Object.assign(
      async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        const answer = (await (await fetch(input, init)).json()) as { machines: Record<string, unknown>[] };
        for (const m of answer.machines) delete m.zone;
        return Response.json(answer);
      },
      { preconnect: fetch.preconnect },
    );
    createMachines(t.cloud.state, 2);
    const { api } = retrying({ fetch: broken });
    const err = await rejection(() => api.listMachines(t.ctx, { page: 1, perPage: 10 }));
    expect(err).toBeInstanceOf(CloudApiSchemaError);
    expect(err.message).toStartWith(
      "sandbox/api.listMachines: the cloud's answer is invalid: machines[0].zone: is required but missing; machines[1].zone: ",
    );
  });

  test("fields the provider does not use are tolerated, and a load balancer's extra fields are kept", async () => {
    createMachines(t.cloud.state, 1);
    const { api } = retrying();
    const [m] = (await api.listMachines(t.ctx, { page: 1, perPage: 1 })).machines;
    expect(m).not.toHaveProperty("providerID");
    const lb = await api.putLoadBalancer(t.ctx, "a1", spec);
    expect(lb).toHaveProperty("createdAt");
  });
});
