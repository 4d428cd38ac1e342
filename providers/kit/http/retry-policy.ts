/**
 * When the cloud-API kit tries a request again, and after how long: a pure decision over what the last attempt
 * got, so the table of cases is tested without a server or a clock.
 *
 * The rule that keeps retries safe: a request is repeated after an ambiguous failure (a 5xx, a lost connection, a
 * timeout: the cloud may have acted) only when repeating it is harmless — GET, HEAD, PUT, DELETE by default, or as
 * the request declares. When the cloud surely did not act — the connection was refused, it answered 429, or it
 * answered one of the provider's retryable codes (hcloud's `locked`, `conflict`) — any request is repeated.
 */

export interface RetryPolicy {
  /** Attempts after the first; 0 turns retrying off. */
  readonly maxRetries: number;
  /** The first back-off's ceiling in ms; it doubles with each retry up to `capMs`. The wait is drawn below it. */
  readonly baseMs: number;
  readonly capMs: number;
  /**
   * The longest wait (Retry-After, back-off) the kit sits out inside one call. A longer one ends the call — a 429
   * as a `RetryError` carrying the wait — so the controller reschedules instead of holding a worker.
   */
  readonly maxWaitMs: number;
  /**
   * The cloud's own answers that mean "nothing was done, try again" (status and its error code, e.g. hcloud's
   * `locked`, `conflict`, `rate_limit_exceeded`). Retried for every method.
   */
  readonly retryable: (answer: { readonly status: number; readonly code: string }) => boolean;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  baseMs: 250,
  capMs: 8_000,
  maxWaitMs: 10_000,
  retryable: () => false,
};

/** What one attempt got. */
export type AttemptResult =
  /** The cloud answered with an error status (2xx and "not found" answers never get here). */
  | { readonly kind: "answer"; readonly status: number; readonly code: string; readonly retryAfterMs?: number }
  /** Nothing reached the cloud: the connection was refused. */
  | { readonly kind: "refused" }
  /** The request may have reached the cloud: the connection broke, or no answer came within the timeout. */
  | { readonly kind: "lost" };

export type RetryDecision =
  | { readonly retry: true; readonly waitMs: number }
  | {
      readonly retry: false;
      /** Why not, for the error message: out of retries, a wait beyond `maxWaitMs`, or not retryable at all. */
      readonly reason: "exhausted" | "wait-too-long" | "final";
      /** The wait the cloud asked for or the kit would have waited; for a 429's `RetryError`. */
      readonly waitMs?: number;
    };

/** Full jitter (a uniform draw below the exponential ceiling): clients that failed together spread out. */
export function backoffMs(policy: RetryPolicy, retriesDone: number, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** retriesDone);
  return Math.floor(random() * ceiling);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** Whether repeating the request is harmless by its method; a request may say otherwise. */
export const idempotentByMethod = (method: string): boolean => SAFE_METHODS.has(method.toUpperCase());

/** Whether to try again after `result`, having retried `retriesDone` times already, and how long to wait first. */
export function decideRetry(
  policy: RetryPolicy,
  result: AttemptResult,
  retriesDone: number,
  idempotent: boolean,
  random: () => number,
): RetryDecision {
  if (!isRetryable(policy, result, idempotent)) return { retry: false, reason: "final" };
  const asked = result.kind === "answer" ? result.retryAfterMs : undefined;
  // A 429 names its own wait; other answers take the larger of the back-off and any Retry-After they carry.
  const waitMs =
    result.kind === "answer" && result.status === 429 && asked !== undefined
      ? asked
      : Math.max(backoffMs(policy, retriesDone, random), asked ?? 0);
  if (retriesDone >= policy.maxRetries) return { retry: false, reason: "exhausted", waitMs };
  if (waitMs > policy.maxWaitMs) return { retry: false, reason: "wait-too-long", waitMs };
  return { retry: true, waitMs };
}

function isRetryable(policy: RetryPolicy, result: AttemptResult, idempotent: boolean): boolean {
  switch (result.kind) {
    case "refused":
      return true;
    case "lost":
      return idempotent;
    case "answer":
      if (result.status === 429 || policy.retryable(result)) return true;
      return result.status >= 500 && idempotent;
  }
}
