import { describe, expect, test } from "bun:test";
import { FakeClock, settle, waitFor } from "../../kube/testdata/fake-clock.ts";
import { createMetricsRegistry } from "../../platform/metrics.ts";
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  serviceControllerRateLimiter,
} from "./rate-limiters.ts";
import { runWorkers, SyncResult } from "./run-workers.ts";
import { WorkQueue } from "./workqueue.ts";

describe("rate limiters", () => {
  test("per-item exponential doubles from the base up to the cap and forgets", () => {
    const limiter = exponentialFailureRateLimiter<string>(5, 40);
    expect([1, 2, 3, 4, 5].map(() => limiter.when("a"))).toEqual([5, 10, 20, 40, 40]);
    expect(limiter.when("b")).toBe(5);
    expect(limiter.numRequeues("a")).toBe(5);
    limiter.forget("a");
    expect(limiter.numRequeues("a")).toBe(0);
    expect(limiter.when("a")).toBe(5);
  });

  test("the exponential limiter does not overflow after many failures", () => {
    const limiter = exponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let i = 0; i < 2000; i++) limiter.when("a");
    expect(limiter.when("a")).toBe(1_000_000);
  });

  test("the token bucket allows a burst, then spaces tokens at 1/qps and refills over time", async () => {
    const clock = new FakeClock();
    const limiter = bucketRateLimiter<string>(10, 3, clock.now);
    expect([1, 2, 3].map(() => limiter.when("x"))).toEqual([0, 0, 0]);
    expect(limiter.when("x")).toBeCloseTo(100);
    expect(limiter.when("y")).toBeCloseTo(200);
    await clock.advance(1000);
    expect(limiter.when("x")).toBe(0);
  });

  test("max-of takes the longest delay and forgets in all", () => {
    const clock = new FakeClock();
    const limiter = maxOfRateLimiter(
      exponentialFailureRateLimiter<string>(5, 1000),
      bucketRateLimiter(1, 1, clock.now),
    );
    expect(limiter.when("a")).toBe(5);
    expect(limiter.when("a")).toBeCloseTo(1000);
    limiter.forget("a");
    expect(limiter.numRequeues("a")).toBe(0);
  });

  test("upstream presets", () => {
    const clock = new FakeClock();
    const controller = defaultControllerRateLimiter<string>(clock.now);
    expect([controller.when("a"), controller.when("a"), controller.when("b")]).toEqual([5, 10, 5]);
    const service = serviceControllerRateLimiter<string>();
    expect([service.when("s"), service.when("s"), service.when("s")]).toEqual([5000, 10000, 20000]);
    for (let i = 0; i < 10; i++) service.when("s");
    expect(service.when("s")).toBe(300_000);
  });
});

describe("WorkQueue", () => {
  test("de-duplicates items that are queued", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    queue.add("b");
    queue.add("a");
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe("a");
    expect(await queue.get()).toBe("b");
  });

  test("an item re-added while processing is handed out again only after done", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    expect(await queue.get()).toBe("a");
    queue.add("a");
    queue.add("a");
    expect(queue.len()).toBe(0);
    let second: string | undefined;
    void queue.get().then((v) => {
      second = v;
    });
    await settle(1);
    expect(second).toBeUndefined();
    queue.done("a");
    await settle(1);
    expect(second).toBe("a");
    expect(queue.len()).toBe(0);
  });

  test("addAfter waits for the clock and keeps the earliest pending time", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock });
    queue.addAfter("a", 1000);
    queue.addAfter("a", 500);
    queue.addAfter("a", 2000);
    expect(queue.waitingCount()).toBe(1);
    await clock.advance(499);
    expect(queue.len()).toBe(0);
    await clock.advance(1);
    expect(queue.len()).toBe(1);
    await clock.advance(5000);
    expect(queue.len()).toBe(1);
  });

  test("addRateLimited backs off exponentially until forget", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: exponentialFailureRateLimiter(100, 10_000) });
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    expect(queue.numRequeues("a")).toBe(2);
    await clock.advance(100);
    expect(queue.len()).toBe(1);
    queue.forget("a");
    expect(queue.numRequeues("a")).toBe(0);
  });

  test("shutDown hands out what is queued, then resolves getters with undefined and ignores adds", async () => {
    const queue = new WorkQueue<string>();
    const idle = queue.get();
    queue.add("a");
    expect(await idle).toBe("a");
    queue.add("b");
    queue.shutDown();
    queue.add("c");
    expect(await queue.get()).toBe("b");
    expect(await queue.get()).toBeUndefined();
  });

  test("shutDownWithDrain waits for items in processing", async () => {
    const queue = new WorkQueue<string>();
    queue.add("a");
    await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => {
      drained = true;
    });
    await settle(1);
    expect(drained).toBeFalse();
    queue.done("a");
    await drain;
    expect(drained).toBeTrue();
  });

  test("reports upstream workqueue metrics labelled with the queue name", async () => {
    const clock = new FakeClock();
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const queue = new WorkQueue<string>({ name: "service", clock, registry });
    new WorkQueue<string>({ name: "node", clock, registry });
    queue.add("a");
    queue.add("b");
    queue.addAfter("c", 10);
    await queue.get();
    await clock.advance(3000);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_depth{name="service"} 2');
    expect(text).toContain('workqueue_adds_total{name="service"} 3');
    expect(text).toContain('workqueue_retries_total{name="service"} 1');
    expect(text).toContain('workqueue_depth{name="node"} 0');
    expect(text).toContain('workqueue_unfinished_work_seconds{name="service"} 3');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="service"} 3');
    expect(text).toContain('workqueue_queue_duration_seconds_count{name="service"} 1');
    queue.done("a");
    expect(await registry.metrics()).toContain('workqueue_work_duration_seconds_count{name="service"} 1');
  });
});

describe("runWorkers", () => {
  test("forgets on success, re-queues by the handler's result, and stops on abort", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: exponentialFailureRateLimiter(1000, 60_000) });
    const controller = new AbortController();
    const seen: string[] = [];
    const results: Record<string, SyncResult[]> = {
      flaky: [SyncResult.rateLimited, SyncResult.rateLimited, SyncResult.ok],
      slow: [SyncResult.retryAfter(30_000), SyncResult.ok],
    };
    const done = runWorkers(
      queue,
      2,
      async (item) => {
        seen.push(`${item}@${clock.now() - Date.parse("2026-01-01T00:00:00Z")}`);
        return results[item]?.shift();
      },
      controller.signal,
    );
    queue.add("flaky");
    queue.add("slow");
    queue.add("fine");
    await waitFor(() => seen.length === 3);
    await clock.advance(1000);
    await clock.advance(2000);
    await clock.advance(27_000);
    expect(seen).toEqual(["flaky@0", "slow@0", "fine@0", "flaky@1000", "flaky@3000", "slow@30000"]);
    expect(queue.numRequeues("flaky")).toBe(0);
    expect(queue.numRequeues("slow")).toBe(0);
    controller.abort();
    await done;
    expect(queue.shuttingDown).toBeTrue();
  });

  test("a thrown error is rate limited; one carrying retryAfterMs waits that long", async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: exponentialFailureRateLimiter(10, 1000) });
    const controller = new AbortController();
    const calls: string[] = [];
    const errors: string[] = [];
    const logger = { error: (m: string) => errors.push(m), info: () => {} } as never;
    const done = runWorkers(
      queue,
      1,
      (item) => {
        calls.push(`${item}@${clock.now() - Date.parse("2026-01-01T00:00:00Z")}`);
        if (calls.length === 1) throw new Error("boom");
        if (calls.length === 2) throw new Error("wrapped", { cause: { retryAfterMs: 5000 } });
        return undefined;
      },
      controller.signal,
      { logger },
    );
    queue.add("x");
    await waitFor(() => calls.length === 1);
    await clock.advance(10);
    await clock.advance(5000);
    expect(calls).toEqual(["x@0", "x@10", "x@5010"]);
    expect(errors).toEqual(["queue: error syncing x: boom"]);
    expect(queue.numRequeues("x")).toBe(0);
    controller.abort();
    await done;
  });

  test("an item is never processed by two workers at once", async () => {
    const queue = new WorkQueue<string>();
    const controller = new AbortController();
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const gates: (() => void)[] = [];
    const done = runWorkers(
      queue,
      4,
      async () => {
        calls++;
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((resolve) => gates.push(resolve));
        active--;
        return SyncResult.ok;
      },
      controller.signal,
    );
    queue.add("k");
    await waitFor(() => gates.length === 1);
    queue.add("k");
    queue.add("k");
    await settle();
    expect(active).toBe(1);
    gates.shift()?.();
    await waitFor(() => gates.length === 1 && calls === 2);
    gates.shift()?.();
    await waitFor(() => active === 0);
    expect(maxActive).toBe(1);
    expect(calls).toBe(2);
    controller.abort();
    await done;
  });
});
