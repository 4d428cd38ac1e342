/**
 * Under the API's faults (429, 5xx, answers lost after the API acted) the syncs end with exactly one load balancer:
 * creation is never repeated blindly (a lost create is found by its Service tag), and a deleted Service leaves none.
 */
import { describe, expect, test } from "bun:test";
import { startHarness } from "../../sandbox/digitalocean/testing.ts";
import { rejection } from "../testing.ts";
import { A, ctx, emulatorPerTest, service, startLB } from "./lb/testing.ts";

const e = emulatorPerTest();

describe("faults: exactly one load balancer, none leaked", () => {
  const faults = [
    ["429 on every first call of a kind", "too_many_requests"],
    ["500 on every first call of a kind", "server_error"],
    ["503 on every first call of a kind", "service_unavailable"],
  ] as const;

  test.each(faults)("%s", async (_name, id) => {
    const w = await e.setUp();
    const methods = ["GET", "POST", "PUT", "DELETE"] as const;
    w.h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: methods.map((method) => ({ method, pathPrefix: "/load_balancers", id, count: 1 })),
    });
    // The service controller calls again after a failure; a few rounds must converge on one load balancer.
    let status: unknown;
    for (let round = 0; round < 6 && status === undefined; round++) {
      status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes).catch(() => undefined);
    }
    expect(status).toBeDefined();
    expect(w.all()).toHaveLength(1);
    expect(w.only().spec.droplet_ids).toHaveLength(3);
    let deleted = false;
    for (let round = 0; round < 6 && !deleted; round++) {
      deleted = await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service()).then(
        () => true,
        () => false,
      );
    }
    expect(w.all()).toEqual([]);
  });

  test("a 5xx on a fifth of all calls, at random: one load balancer while the Service lives, none after", async () => {
    const w = await e.setUp();
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0.2, failNext: [] });
    let succeeded = 0;
    for (let round = 0; round < 12; round++) {
      const svc = service(round % 2 === 0 ? {} : { [`${A}enable-backend-keepalive`]: "true" });
      const ok = await w.lb.ensureLoadBalancer(ctx, "kubernetes", svc, w.nodes).then(
        () => true,
        () => false,
      );
      if (ok) succeeded++;
      expect(w.all().length).toBeLessThanOrEqual(1);
    }
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [] });
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(succeeded).toBeGreaterThan(0);
    expect(w.all()).toHaveLength(1);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(w.all()).toEqual([]);
  });

  test("a create whose answer is lost (after the API made it) leaves one load balancer, found by its Service tag", async () => {
    const h = startHarness();
    let lose = 1;
    const losing: typeof fetch = Object.assign(
      async (input: Request | string | URL, init?: RequestInit) => {
        const answer = await fetch(input, init);
        const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        if (lose > 0 && init?.method === "POST" && url.endsWith("/load_balancers")) {
          lose--;
          return new Response("bad gateway", { status: 502 });
        }
        return answer;
      },
      { preconnect: fetch.preconnect },
    );
    try {
      const w = await startLB(h, { fetch: losing, retries: 3 });
      const first = await rejection(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
      expect(first.message).toContain("502");
      expect(w.all()).toHaveLength(1);
      await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
      expect(w.all()).toHaveLength(1);
      expect(w.only().spec.droplet_ids).toHaveLength(3);
    } finally {
      await h.stop();
    }
  });
});
