/**
 * Never stuck, never doubled: a load balancer in ERROR is rebuilt keeping its floating IP; one stuck in
 * PENDING_UPDATE ends the sync within the deadline with a Warning naming it and its status (OCCM #1052, #2541);
 * under 5xx, 429 and 409 answers repeated syncs leave exactly one load balancer and one floating IP, and a delete
 * leaves none.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rejection } from "../testing.ts";
import { ctx, type LBWorld, service, startLB } from "./lb/testing.ts";
import { LOAD_BALANCER_DEADLINE_MS } from "./provider.ts";

let w: LBWorld;
afterEach(() => w?.stop());

const world = () => w.h.emulator.world.octavia;

async function control(id: string, change: Record<string, string>) {
  const res = await fetch(`${w.h.emulator.controlUrl}/loadbalancers/${id}`, {
    method: "PUT",
    body: JSON.stringify(change),
  });
  expect(res.status).toBe(200);
}

/** Syncs until one succeeds, at most `tries` times; the failures seen. */
async function untilDone(run: () => Promise<unknown>, tries = 40): Promise<number> {
  for (let i = 0; i < tries; i++) {
    try {
      await run();
      return i;
    } catch {}
  }
  throw new Error(`no success in ${tries} tries`);
}

describe("recovery", () => {
  test("a load balancer in ERROR is made again with a Warning, keeping its floating IP", async () => {
    w = await startLB();
    const before = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const old = w.only().id;
    await control(old, { status: "ERROR" });
    const after = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.only().id).not.toBe(old);
    expect(w.only().status).toBe("ACTIVE");
    expect(after).toEqual(before);
    expect(world().floatingIPs.size).toBe(1);
    expect(w.warnings.some((m) => m.includes(old) && m.includes("ERROR"))).toBe(true);
  });

  test("one stuck in PENDING_UPDATE fails the sync within the deadline, naming it and its status, with a Warning", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const id = w.only().id;
    await control(id, { status: "PENDING_UPDATE", fault: "stuck" });
    const start = w.h.clock.now();
    const err = await rejection(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
    expect(err.message).toContain(id);
    expect(err.message).toContain("PENDING_UPDATE");
    const waited = w.h.clock.now() - start;
    expect(waited).toBeGreaterThanOrEqual(LOAD_BALANCER_DEADLINE_MS);
    expect(waited).toBeLessThan(LOAD_BALANCER_DEADLINE_MS + 11_000);
    expect(w.warnings.some((m) => m.includes(id) && m.includes("PENDING_UPDATE"))).toBe(true);
    await control(id, { status: "ACTIVE", fault: "none" });
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.only().id).toBe(id);
  });

  test("a create that lands in ERROR is deleted and made again on the next sync", async () => {
    w = await startLB();
    w.h.emulator.world.octavia.pendingReads = 1;
    const original = w.h.emulator.faults.check.bind(w.h.emulator.faults);
    let erred = false;
    // The first load balancer made settles into ERROR: the fault is set on it right after the create.
    w.h.emulator.faults.check = (method, path) => {
      if (!erred && method === "GET" && path.startsWith("/load-balancer/v2/lbaas/loadbalancers/")) {
        const lb = [...world().loadBalancers.values()][0];
        if (lb) {
          lb.fault = "error";
          erred = true;
        }
      }
      return original(method, path);
    };
    const err = await rejection(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
    expect(err.message).toContain("went into ERROR");
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.only().status).toBe("ACTIVE");
    expect(world().floatingIPs.size).toBe(1);
  });
});

describe("faults", () => {
  test.each([
    ["500", 500],
    ["503", 503],
    ["429", 429],
  ])("under a %s on every call in turn: one load balancer, one floating IP, then none", async (_, status) => {
    w = await startLB();
    const prefixes = ["/load-balancer/v2/lbaas", "/networking/v2.0/floatingips", "/networking/v2.0/ports"];
    for (const method of ["GET", "POST", "PUT", "DELETE"] as const) {
      for (const pathPrefix of prefixes) {
        w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [{ method, pathPrefix, status, count: 1 }] });
        await untilDone(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
        expect(world().loadBalancers.size).toBe(1);
        expect(world().floatingIPs.size).toBe(1);
      }
    }
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0.3, failNext: [] });
    await untilDone(() => w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service()));
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0, failNext: [] });
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(world().loadBalancers.size).toBe(0);
    expect(world().floatingIPs.size).toBe(0);
  });

  test("at a 30% error rate, syncs until one succeeds leave exactly one load balancer and floating IP", async () => {
    w = await startLB();
    w.h.emulator.faults.set({ latencyMs: 0, errorRate: 0.3, failNext: [] });
    const failures = await untilDone(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
    expect(failures).toBeGreaterThan(0);
    expect(world().loadBalancers.size).toBe(1);
    expect(world().floatingIPs.size).toBe(1);
  });

  test("a 409 on a change (another change settling) is waited out and the change made once", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    w.h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: [{ method: "PUT", pathPrefix: "/load-balancer/v2/lbaas/pools/", status: 409, count: 1 }],
    });
    const third = w.addNode("node-3");
    await w.lb.updateLoadBalancer(ctx, "kubernetes", service(), [...w.nodes, third]);
    expect(w.only().pools[0]?.members.map((m) => m.name)).toEqual(["node-1", "node-2", "node-3"]);
  });
});
