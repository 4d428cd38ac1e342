import { describe, expect, test } from "bun:test";
import { Faults } from "./faults.ts";
import { seededRandom } from "./random.ts";

function faultsAt(clock: { ms: number }, seed = 7): Faults {
  return new Faults({ random: seededRandom(seed), now: () => clock.ms });
}

describe("Faults", () => {
  test("lets everything through by default", () => {
    const faults = faultsAt({ ms: 0 });
    for (let i = 0; i < 100; i++) expect(faults.check("GET", "/v1/machines")).toBeUndefined();
  });

  test("rate limit allows a burst, then answers 429 until tokens refill", () => {
    const clock = { ms: 0 };
    const faults = faultsAt(clock);
    faults.set({ rateLimit: { qps: 2, burst: 3 } });
    for (let i = 0; i < 3; i++) expect(faults.check("GET", "/v1/machines")).toBeUndefined();
    expect(faults.check("GET", "/v1/machines")).toMatchObject({
      status: 429,
      code: "RateLimited",
      retryAfterSeconds: 1,
    });
    clock.ms += 500;
    expect(faults.check("GET", "/v1/machines")).toBeUndefined();
    expect(faults.check("GET", "/v1/machines")?.status).toBe(429);
  });

  test("rate limit's Retry-After covers the time to the next token", () => {
    const faults = faultsAt({ ms: 0 });
    faults.set({ rateLimit: { qps: 0.25, burst: 1 } });
    faults.check("GET", "/");
    expect(faults.check("GET", "/")?.retryAfterSeconds).toBe(4);
  });

  test("failNext fails exactly count matching calls, then is gone", () => {
    const faults = faultsAt({ ms: 0 });
    faults.set({ failNext: [{ method: "put", pathPrefix: "/v1/load-balancers", status: 503, count: 2 }] });
    expect(faults.check("GET", "/v1/load-balancers/a")).toBeUndefined();
    expect(faults.check("PUT", "/v1/machines")).toBeUndefined();
    expect(faults.check("PUT", "/v1/load-balancers/a")).toMatchObject({ status: 503, code: "InjectedFault" });
    expect(faults.get().failNext).toEqual([{ method: "PUT", pathPrefix: "/v1/load-balancers", status: 503, count: 1 }]);
    expect(faults.check("PUT", "/v1/load-balancers/b")?.status).toBe(503);
    expect(faults.check("PUT", "/v1/load-balancers/b")).toBeUndefined();
    expect(faults.get().failNext).toEqual([]);
  });

  test("failNext with 429 sends Retry-After, 1 second unless given", () => {
    const faults = faultsAt({ ms: 0 });
    faults.set({
      failNext: [
        { pathPrefix: "/a", status: 429, count: 1 },
        { pathPrefix: "/b", status: 429, count: 1, retryAfterSeconds: 7 },
        { pathPrefix: "/c", status: 500, count: 1 },
      ],
    });
    expect(faults.check("GET", "/a")?.retryAfterSeconds).toBe(1);
    expect(faults.check("GET", "/b")?.retryAfterSeconds).toBe(7);
    expect(faults.check("GET", "/c")?.retryAfterSeconds).toBeUndefined();
  });

  test("error rate fails about that fraction, the same calls for the same seed", () => {
    const run = () => {
      const faults = faultsAt({ ms: 0 }, 42);
      faults.set({ errorRate: 0.3 });
      return Array.from({ length: 1000 }, () => faults.check("GET", "/v1/machines")?.status ?? 200);
    };
    const first = run();
    expect(run()).toEqual(first);
    const failed = first.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(230);
    expect(failed).toBeLessThan(370);
  });

  test("set replaces the whole configuration", () => {
    const faults = faultsAt({ ms: 0 });
    faults.set({ latencyMs: 20, errorRate: 1 });
    expect(faults.set({ latencyMs: 5 })).toEqual({ latencyMs: 5, errorRate: 0, rateLimit: null, failNext: [] });
  });
});
