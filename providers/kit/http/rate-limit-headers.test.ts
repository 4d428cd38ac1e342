import { describe, expect, test } from "bun:test";
import { RateLimitPacer, readRateLimit, retryAfterMs, spacingMs } from "./rate-limit-headers.ts";

const t0 = Date.parse("2026-01-01T00:00:00Z");
const now = () => t0;

describe("retryAfterMs", () => {
  test.each([
    [null, undefined],
    ["", undefined],
    ["3", 3000],
    ["0", 0],
    ["Thu, 01 Jan 2026 00:00:05 GMT", 5000],
    ["Wed, 31 Dec 2025 23:59:00 GMT", 0],
    ["soon", undefined],
  ])("%p → %p ms", (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });
});

describe("readRateLimit", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  test.each([
    [
      "Hetzner's Unix timestamp",
      { "ratelimit-remaining": "7", "ratelimit-reset": String(t0 / 1000 + 60), "ratelimit-limit": "3600" },
      { remaining: 7, resetAt: t0 + 60_000, limit: 3600 },
    ],
    [
      "a delta in seconds",
      { "ratelimit-remaining": "0", "ratelimit-reset": "30" },
      { remaining: 0, resetAt: t0 + 30_000 },
    ],
    ["no Reset", { "ratelimit-remaining": "3" }, undefined],
    ["an unreadable Remaining", { "ratelimit-remaining": "many", "ratelimit-reset": "3" }, undefined],
    ["none", {}, undefined],
  ])("%s", (_, h, want) => {
    expect(readRateLimit(headers(h), now)).toEqual(want);
  });
});

describe("spacingMs", () => {
  test.each([
    ["above the low-water mark: no pacing", { remaining: 50, resetAt: t0 + 10_000 }, 0],
    ["a window without a limit: the rest spread over the time left", { remaining: 3, resetAt: t0 + 8000 }, 2000],
    ["an empty window: wait it out", { remaining: 0, resetAt: t0 + 8000 }, 8000],
    ["Hetzner's headers: the refill rate", { remaining: 0, resetAt: t0 + 3_600_000, limit: 3600 }, 1000],
    [
      "a Reset sooner than Limit per hour allows: Limit per hour",
      { remaining: 0, resetAt: t0 + 60_000, limit: 3600 },
      1000,
    ],
    [
      "a Reset later than Limit per hour: the missing requests by Reset",
      { remaining: 0, resetAt: t0 + 7_200_000, limit: 3600 },
      2000,
    ],
    ["a Limit per shorter window: never past Reset", { remaining: 0, resetAt: t0 + 60_000, limit: 30 }, 60_000],
    ["a reset in the past", { remaining: 0, resetAt: t0 - 5000 }, 0],
  ])("%s", (_, state, want) => {
    expect(spacingMs(state, now, 5)).toBe(want);
  });
});

describe("RateLimitPacer", () => {
  test("concurrent callers each reserve the next slot, one spacing apart", () => {
    const pacer = new RateLimitPacer(now);
    pacer.observe(new Headers({ "ratelimit-remaining": "0", "ratelimit-reset": "2" }));
    expect([pacer.reserve(60_000), pacer.reserve(60_000), pacer.reserve(60_000)]).toEqual([2000, 4000, 6000]);
  });

  test("a wait beyond the caller's limit reserves nothing", () => {
    const pacer = new RateLimitPacer(now);
    pacer.observe(new Headers({ "ratelimit-remaining": "0", "ratelimit-reset": "20" }));
    expect(pacer.reserve(1000)).toBe(20_000);
    expect(pacer.reserve(60_000)).toBe(20_000);
  });
});
