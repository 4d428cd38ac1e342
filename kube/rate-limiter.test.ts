import { describe, expect, test } from "bun:test";
import { createTokenBucket } from "./rate-limiter.ts";
import { fakeClock } from "./testdata/helpers.ts";

describe("token bucket", () => {
  test("admits a burst at once, then paces at qps", async () => {
    const clock = fakeClock();
    const bucket = createTokenBucket({ qps: 2, burst: 3, now: clock.now, sleep: clock.sleep });
    for (let i = 0; i < 3; i++) await bucket.wait();
    expect(clock.sleeps).toEqual([]);
    for (let i = 0; i < 3; i++) await bucket.wait();
    expect(clock.sleeps).toEqual([500, 500, 500]);
  });

  test("queues concurrent waiters in order, each one token further out", async () => {
    const clock = fakeClock();
    const requested: number[] = [];
    const bucket = createTokenBucket({
      qps: 10,
      burst: 1,
      now: clock.now,
      sleep: async (ms) => void requested.push(ms),
    });
    await Promise.all([bucket.wait(), bucket.wait(), bucket.wait(), bucket.wait()]);
    expect(requested).toEqual([100, 200, 300]);
  });

  test("refills while idle, but never beyond the burst", async () => {
    const clock = fakeClock();
    const bucket = createTokenBucket({ qps: 1, burst: 2, now: clock.now, sleep: clock.sleep });
    await bucket.wait();
    await bucket.wait();
    clock.advance(60_000);
    await bucket.wait();
    await bucket.wait();
    expect(clock.sleeps).toEqual([]);
    await bucket.wait();
    expect(clock.sleeps).toEqual([1000]);
  });

  test("gives the token back when the waiter's signal aborts", async () => {
    const clock = fakeClock();
    const ac = new AbortController();
    const requested: number[] = [];
    const bucket = createTokenBucket({
      qps: 1,
      burst: 1,
      now: clock.now,
      sleep: async (ms, signal) => {
        requested.push(ms);
        if (signal) ac.abort(new Error("gave up")); // and the sleep resolves early, as the Sleep contract says
      },
    });
    await bucket.wait();
    await expect(bucket.wait(ac.signal)).rejects.toThrow("gave up");
    await bucket.wait();
    expect(requested).toEqual([1000, 1000]);
  });

  test("does not limit when qps is 0", async () => {
    const clock = fakeClock();
    const bucket = createTokenBucket({ qps: 0, burst: 1, now: clock.now, sleep: clock.sleep });
    for (let i = 0; i < 100; i++) await bucket.wait();
    expect(clock.sleeps).toEqual([]);
  });
});
