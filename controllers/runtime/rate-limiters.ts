/**
 * How long a work-queue item waits before its next try, as upstream's workqueue rate limiters decide it.
 * Durations are milliseconds.
 */
import type { Now } from "../../kube/clock.ts";

export interface RateLimiter<T> {
  /** The delay before `item` may be processed again; counts as one more failure of `item`. */
  when(item: T): number;
  /** Clears the failure history of `item` (after a success or when giving up). */
  forget(item: T): void;
  /** Failures recorded for `item` since the last `forget`. */
  numRequeues(item: T): number;
}

/** base·2^failures, capped at `maxMs`, per item. */
export const exponentialFailureRateLimiter = <T>(baseMs: number, maxMs: number): RateLimiter<T> => {
  const failures = new Map<T, number>();
  return {
    when(item) {
      const n = failures.get(item) ?? 0;
      failures.set(item, n + 1);
      const delay = baseMs * 2 ** n;
      return Number.isFinite(delay) ? Math.min(delay, maxMs) : maxMs;
    },
    forget: (item) => void failures.delete(item),
    numRequeues: (item) => failures.get(item) ?? 0,
  };
};

/**
 * A token bucket shared by all items: `burst` tokens, refilled at `qps` per second. Each `when` reserves a token,
 * possibly in the future, and returns the wait until it is available. Has no per-item memory.
 */
export const bucketRateLimiter = <T>(qps: number, burst: number, now: Now): RateLimiter<T> => {
  let tokens = burst;
  let last = now();
  return {
    when() {
      const t = now();
      tokens = Math.min(burst, tokens + (Math.max(0, t - last) * qps) / 1000);
      last = Math.max(last, t);
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens / qps) * 1000;
    },
    forget: () => {},
    numRequeues: () => 0,
  };
};

/** The longest delay of several limiters; every limiter sees every call. */
export const maxOfRateLimiter = <T>(...limiters: RateLimiter<T>[]): RateLimiter<T> => ({
  when: (item) => Math.max(0, ...limiters.map((l) => l.when(item))),
  forget: (item) => {
    for (const l of limiters) l.forget(item);
  },
  numRequeues: (item) => Math.max(0, ...limiters.map((l) => l.numRequeues(item))),
});

/** Upstream's default controller rate limiter: max(per-item 5ms·2^n up to 1000s, bucket 10/s burst 100). */
export const defaultControllerRateLimiter = <T>(now: Now): RateLimiter<T> =>
  maxOfRateLimiter(exponentialFailureRateLimiter<T>(5, 1_000_000), bucketRateLimiter<T>(10, 100, now));

/** The service controller's queues: per-item 5s·2^n up to 300s. */
export const serviceControllerRateLimiter = <T>(): RateLimiter<T> => exponentialFailureRateLimiter<T>(5_000, 300_000);
