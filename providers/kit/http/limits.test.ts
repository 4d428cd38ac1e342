import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { RetryError } from "../../errors.ts";
import { rejection } from "../../testing.ts";
import type { CloudApiClient } from "./client.ts";
import { errorAnswer, useTestBed } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
const answer = v.object({});

const bed = useTestBed({ name: "test/api", provider: "test-cloud" });
const client = bed.client;

const call = (c: CloudApiClient, operation = "op") => c.request(ctx, { operation, method: "GET", path: "/x", answer });

/** A sample's value in a scrape; 0 when absent. */
const sample = async (series: string) =>
  Number(
    (await bed.registry.metrics())
      .split("\n")
      .find((line) => line.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

describe("the client-side token bucket", () => {
  const rates: [{ qps: number; burst: number }, number, number][] = [
    [{ qps: 2, burst: 1 }, 9, 4000],
    [{ qps: 10, burst: 5 }, 25, 2000],
  ];
  for (const [rateLimit, calls, ms] of rates) {
    test(`${rateLimit.qps}/s in bursts of ${rateLimit.burst} holds its rate: ${calls} calls take ${ms} ms`, async () => {
      const c = client({ rateLimit });
      const start = bed.clock.now();
      const sentAt: number[] = [];
      bed.server.answer(() => {
        sentAt.push(bed.clock.now());
        return Response.json({});
      });
      for (let i = 0; i < calls; i++) await call(c);
      expect(bed.clock.now() - start).toBe(ms);
      // Never more than `burst` calls plus what the rate refilled, in any window from the start.
      for (const [i, at] of sentAt.entries()) {
        expect(i + 1).toBeLessThanOrEqual(rateLimit.burst + Math.floor(((at - start) / 1000) * rateLimit.qps));
      }
    });
  }

  test("every retry takes a token too", async () => {
    bed.server.answer((_, n) => (n < 2 ? errorAnswer(503, "unavailable", "x") : Response.json({})));
    await call(client({ rateLimit: { qps: 1, burst: 1 }, retry: { baseMs: 0 } }));
    expect(bed.clock.waits).toEqual([0, 1000, 0, 1000]);
  });
});

describe("the cloud's rate-limit headers", () => {
  const budget = (remaining: number, reset: string, limit?: number) => () =>
    Response.json(
      {},
      {
        headers: {
          "ratelimit-remaining": String(remaining),
          "ratelimit-reset": reset,
          ...(limit !== undefined && { "ratelimit-limit": String(limit) }),
        },
      },
    );

  test("a spent budget holds the next call until Reset (seconds from now)", async () => {
    const c = client();
    bed.server.answer(budget(0, "3"));
    await call(c);
    expect(bed.clock.waits).toEqual([]);
    bed.server.answer(() => Response.json({}));
    await call(c);
    expect(bed.clock.waits).toEqual([3000]);
  });

  test("Hetzner's form: with a limit and a Unix Reset, a low budget paces calls at the refill rate", async () => {
    const c = client();
    const resetAt = (bed.clock.now() + 3600_000) / 1000;
    bed.server.answer(budget(2, String(resetAt), 3600));
    for (let i = 0; i < 4; i++) await call(c);
    // 3598 tokens refill in 3600 s: after the first call that read the low budget, one a little over a second apart.
    expect(bed.clock.waits.map(Math.round)).toEqual([1001, 1001]);
  });

  test("a budget well above its low-water mark does not slow the client", async () => {
    const c = client();
    bed.server.answer(budget(3000, "60", 3600));
    for (let i = 0; i < 5; i++) await call(c);
    expect(bed.clock.waits).toEqual([]);
  });

  describe("a spent budget holds the next request until a request is back by Hetzner's documented refill", () => {
    // Remaining 0 with Reset 60 s ahead: at Limit per hour one request is back after 3600 s / Limit, never past Reset.
    const unix = (ms: number) => String(Math.floor(ms / 1000));
    const cases = [
      {
        name: "a 429 at Limit 3600 is retried after a second, not after the back-off alone",
        status: 429,
        limit: 3600,
        waitedMs: 1000,
      },
      { name: "a 200 at Limit 3600 holds the next call a second", status: 200, limit: 3600, waitedMs: 1000 },
      { name: "a 429 at Limit 7200 is retried after half a second", status: 429, limit: 7200, waitedMs: 500 },
      {
        name: "a 200 at Limit 30 (a per-minute window) holds the next call until Reset",
        status: 200,
        limit: 30,
        waitedMs: 60_000,
      },
    ];
    test.each(cases)("$name", async (c) => {
      const cl = client({ retry: { maxWaitMs: 120_000 } });
      const headers = {
        "ratelimit-limit": String(c.limit),
        "ratelimit-remaining": "0",
        "ratelimit-reset": unix(bed.clock.now() + 60_000),
      };
      const sentAt: number[] = [];
      bed.server.answer((_, n) => {
        sentAt.push(bed.clock.now());
        if (n > 0) return Response.json({});
        return c.status === 429
          ? errorAnswer(429, "rate_limit_exceeded", "limit of requests per hour reached", headers)
          : Response.json({}, { headers });
      });
      await call(cl);
      if (c.status === 200) await call(cl);
      expect(sentAt).toHaveLength(2);
      expect(Math.round((sentAt[1] ?? 0) - (sentAt[0] ?? 0))).toBe(c.waitedMs);
    });
  });

  test("a spent budget that resets later than the longest wait ends the call with a RetryError", async () => {
    const c = client();
    bed.server.answer(budget(0, "120"));
    await call(c);
    const err = await rejection(() => call(c));
    expect(err).toBeInstanceOf(RetryError);
    expect((err as RetryError).retryAfterMs).toBe(120_000);
    expect(bed.server.received).toHaveLength(1);
  });
});

describe("metrics", () => {
  test("each call is one observation by operation, retries included; errors and throttles are counted", async () => {
    const c = client();
    bed.server.answer(() => Response.json({}));
    await call(c, "listServers");
    await call(c, "listServers");
    bed.server.answer((_, n) => (n === 2 ? errorAnswer(429, "rate_limit_exceeded", "x") : Response.json({})));
    await call(c, "getServer");
    bed.server.answer(() => errorAnswer(400, "invalid_input", "x"));
    await rejection(() => call(c, "getServer"));
    const m = "cloudprovider_test_cloud_api";
    expect(await sample(`${m}_request_duration_seconds_count{request="listServers"}`)).toBe(2);
    expect(await sample(`${m}_request_duration_seconds_count{request="getServer"}`)).toBe(2);
    expect(await sample(`${m}_request_errors{request="getServer"}`)).toBe(1);
    expect(await sample(`${m}_request_errors{request="listServers"}`)).toBe(0);
    expect(await sample(`${m}_throttled_requests_total{request="getServer"}`)).toBe(1);
  });

  test("the call's duration includes the waits between its attempts", async () => {
    bed.server.answer((_, n) => (n === 0 ? errorAnswer(503, "unavailable", "x") : Response.json({})));
    await call(client({ retry: { baseMs: 2000 } }));
    expect(await sample('cloudprovider_test_cloud_api_request_duration_seconds_sum{request="op"}')).toBe(1);
  });

  test("a 429 that ends the call counts once as throttled per refusal, and as one error", async () => {
    bed.server.answer(() => errorAnswer(429, "rate_limit_exceeded", "x"));
    await rejection(() => call(client({ retry: { maxRetries: 2 } })));
    expect(await sample('cloudprovider_test_cloud_api_throttled_requests_total{request="op"}')).toBe(3);
    expect(await sample('cloudprovider_test_cloud_api_request_errors{request="op"}')).toBe(1);
  });
});
