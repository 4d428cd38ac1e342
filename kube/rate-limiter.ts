/**
 * Client-side rate limiting, as client-go does it: a token bucket holding up to `burst` tokens, refilled at `qps`
 * per second. Every request takes one token; without one it waits its turn (callers are served in order, each
 * reservation pushing the next one later). A request never fails for lack of a token, only for its signal.
 */
import { abortableSleep, type Now, type Sleep } from "./clock.ts";

export interface RateLimiter {
  /** Resolves when the request may go; rejects with the signal's reason if it aborts first. */
  wait(signal?: AbortSignal): Promise<void>;
}

export interface TokenBucketOptions {
  /** Tokens per second; 0 or less disables limiting. */
  readonly qps: number;
  /** Bucket size (requests that may go at once after a quiet period); at least 1. */
  readonly burst: number;
  readonly now?: Now;
  readonly sleep?: Sleep;
}

export function createTokenBucket(opts: TokenBucketOptions): RateLimiter {
  const { qps } = opts;
  if (!(qps > 0) || !Number.isFinite(qps)) return { wait: async () => {} };
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const burst = Math.max(1, Math.floor(opts.burst));
  let tokens = burst;
  let last = now();

  return {
    async wait(signal) {
      if (signal?.aborted) throw signal.reason;
      const t = now();
      tokens = Math.min(burst, tokens + ((t - last) / 1000) * qps);
      last = t;
      tokens -= 1;
      if (tokens >= 0) return;
      // The deficit is this caller's place in line: it waits until the bucket has refilled up to it.
      const waitMs = Math.ceil((-tokens / qps) * 1000);
      // An abort gives the reservation back, so the callers behind do not wait for it.
      await sleep(waitMs, signal).catch(() => {});
      if (signal?.aborted) {
        tokens += 1;
        throw signal.reason;
      }
    },
  };
}
