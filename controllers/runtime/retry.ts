/**
 * Retry-on-conflict (upstream: client-go `retry.RetryOnConflict`): repeat an optimistic-concurrency write only while it
 * fails with 409 Conflict. Any other error, and the last conflict, go to the caller unchanged.
 */
import { isAlreadyExists, isConflict } from "../../kube/client-types.ts";
import type { Sleep } from "../../kube/clock.ts";

export interface RetryOnConflictOptions {
  /** Total tries, the first included. Default 5 (upstream's node helpers). */
  readonly attempts?: number;
  /** Default 100ms. */
  readonly baseMs?: number;
  /** Sleep is `baseMs × (1 + random() × jitter)`. Default 1 (up to double the base). */
  readonly jitter?: number;
  readonly sleep: Sleep;
  readonly random?: () => number;
  /** Aborting stops retrying (the current error is thrown). */
  readonly signal?: AbortSignal;
}

/**
 * Calls `fn(attempt)` (attempt counts from 1) until it resolves, fails with something other than a Conflict, or
 * runs out of attempts. `409 AlreadyExists` is not a conflict here (as upstream's `IsConflict`): re-creating will
 * not help.
 */
export const retryOnConflict = async <T>(
  fn: (attempt: number) => Promise<T>,
  { attempts = 5, baseMs = 100, jitter = 1, sleep, random = Math.random, signal }: RetryOnConflictOptions,
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const retriable = isConflict(err) && !isAlreadyExists(err);
      if (!retriable || attempt >= attempts || signal?.aborted) throw err;
      await sleep(baseMs * (1 + random() * jitter), signal);
    }
  }
};
