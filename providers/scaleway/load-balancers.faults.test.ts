/**
 * Under the API's faults (429, `transient_state`, 5xx) the syncs end with exactly one load balancer, one frontend
 * and one backend per port, and after the Service is deleted nothing is left: no load balancer, no flexible IP.
 */
import { describe, expect, test } from "bun:test";
import { A, ctx, service, setUp } from "./lb/testing.ts";

const prefixes = ["/lb/v1/zones/fr-par-1/lbs", "/lb/v1/zones/fr-par-1/backends", "/lb/v1/zones/fr-par-1/frontends"];

describe("faults: exactly one load balancer, none leaked", () => {
  test.each([
    ["429 on every first call of a kind", "too_many_requests", 3],
    ["transient_state", "transient_state", 0],
    ["5xx", "service_unavailable", 0],
    ["internal_error", "internal_error", 0],
  ] as const)("%s", async (_name, type, retries) => {
    const w = await setUp({}, retries);
    w.h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: prefixes.flatMap((pathPrefix) =>
        (["GET", "POST", "PUT", "DELETE"] as const).map((method) => ({ method, pathPrefix, type, count: 1 })),
      ),
    });
    // The service controller calls again after a failure; a few rounds must converge on one load balancer.
    let status: unknown;
    for (let round = 0; round < 8 && status === undefined; round++) {
      status = await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes).catch(() => undefined);
    }
    expect(status).toBeDefined();
    const world = w.h.emulator.world.lb;
    expect(world.lbs.size).toBe(1);
    expect(world.frontends.size).toBe(2);
    expect(world.backends.size).toBe(2);
    let deleted = false;
    for (let round = 0; round < 8 && !deleted; round++) {
      deleted = await w.lb.ensureLoadBalancerDeleted(ctx, "k", service()).then(
        () => true,
        () => false,
      );
    }
    expect(deleted).toBe(true);
    expect(world.lbs.size + world.ips.size).toBe(0);
  });

  test("a 5xx on a fifth of all calls, at random: one load balancer, and none once the Service is gone", async () => {
    const w = await setUp();
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0.2, failNext: [] });
    let succeeded = 0;
    for (let round = 0; round < 12; round++) {
      const svc = service(round % 2 === 0 ? {} : { [`${A}forward-port-algorithm`]: "leastconn" });
      if (
        await w.lb.ensureLoadBalancer(ctx, "k", svc, w.nodes).then(
          () => true,
          () => false,
        )
      )
        succeeded++;
    }
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [] });
    await w.lb.ensureLoadBalancer(ctx, "k", service(), w.nodes);
    expect(succeeded).toBeGreaterThan(0);
    const world = w.h.emulator.world.lb;
    expect(world.lbs.size).toBe(1);
    expect(world.frontends.size).toBe(2);
    expect(world.backends.size).toBe(2);
    await w.lb.ensureLoadBalancerDeleted(ctx, "k", service());
    expect(world.lbs.size + world.ips.size).toBe(0);
  });
});
