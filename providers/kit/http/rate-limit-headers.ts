/**
 * What a cloud's answer headers say about its rate limit, and how the kit slows down before the budget is spent.
 *
 * - `Retry-After`: seconds or an HTTP date (RFC 9110).
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, as Hetzner documents them: Limit is the requests
 *   allowed per hour, Remaining grows back gradually at that rate (3600 an hour: one a second), and Reset is the
 *   Unix time in seconds when the budget is full again; a small Reset is read as seconds from now (the IETF draft's
 *   form).
 */
import type { Now } from "../../../kube/clock.ts";

/** Reset values below this are deltas in seconds; above, Unix timestamps (1e9 s is September 2001). */
const UNIX_TIME_FLOOR = 1e9;

/** Retry-After in milliseconds (never negative), or `undefined` when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Now): number | undefined {
  const value = header?.trim() ?? "";
  if (value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now());
}

export interface RateLimitState {
  /** The budget when full, when the cloud says. */
  readonly limit?: number;
  readonly remaining: number;
  /** When the budget is full again (Hetzner) or the window ends, in ms since the epoch. */
  readonly resetAt: number;
}

/** The rate-limit headers of an answer, or `undefined` when it has no readable Remaining and Reset. */
export function readRateLimit(headers: Headers, now: Now): RateLimitState | undefined {
  const remaining = wholeNumber(headers.get("ratelimit-remaining"));
  const reset = wholeNumber(headers.get("ratelimit-reset"));
  if (remaining === undefined || reset === undefined) return undefined;
  const limit = wholeNumber(headers.get("ratelimit-limit"));
  const resetAt = reset >= UNIX_TIME_FLOOR ? reset * 1000 : now() + reset * 1000;
  return { remaining, resetAt, ...(limit !== undefined && { limit }) };
}

const HOUR_MS = 3_600_000;

/**
 * The spacing between requests that keeps the budget from running out, in ms (0: no need to slow down).
 * Above `lowWater` remaining requests the client runs freely. Below it: with a known limit the budget refills
 * steadily (Hetzner's token bucket), so requests go at the refill rate, the slower of the two the headers give —
 * Limit per hour, as documented, and the missing requests back by Reset — for a Reset sooner than the hourly rate
 * allows says nothing of when the next single request is back; never past Reset, when the whole budget is back
 * (which also serves a cloud whose Limit is per shorter window). Without a limit the budget comes back at Reset,
 * so the rest is spread over the time left.
 */
export function spacingMs(state: RateLimitState, now: Now, lowWater: number): number {
  if (state.remaining > lowWater) return 0;
  const left = Math.max(0, state.resetAt - now());
  if (state.limit !== undefined && state.limit > state.remaining) {
    const byReset = left / (state.limit - state.remaining);
    return Math.min(left, Math.max(byReset, HOUR_MS / state.limit));
  }
  return left / (state.remaining + 1);
}

/** Requests below this many remaining are paced, unless a tenth of the known limit is more. */
const DEFAULT_LOW_WATER = 5;

/**
 * Paces a client's requests by the rate-limit headers it last saw. Each request reserves the next free slot, so
 * concurrent callers go one `spacing` apart instead of all at once.
 */
export class RateLimitPacer {
  readonly #now: Now;
  #spacing = 0;
  #notBefore = 0;

  constructor(now: Now) {
    this.#now = now;
  }

  /** Read an answer's headers; answers without rate-limit headers change nothing. */
  observe(headers: Headers): void {
    const state = readRateLimit(headers, this.#now);
    if (!state) return;
    const lowWater = Math.max(DEFAULT_LOW_WATER, Math.floor((state.limit ?? 0) / 10));
    this.#spacing = spacingMs(state, this.#now, lowWater);
    // An empty budget holds even the next request back.
    if (state.remaining === 0) this.#notBefore = Math.max(this.#notBefore, this.#now() + this.#spacing);
  }

  /**
   * How long the next request must wait (ms), having reserved its slot — unless that is more than `maxWaitMs`:
   * then nothing is reserved, and the caller gives up instead of waiting.
   */
  reserve(maxWaitMs: number): number {
    const now = this.#now();
    const at = Math.max(this.#notBefore, now);
    if (at - now > maxWaitMs) return at - now;
    this.#notBefore = at + this.#spacing;
    return at - now;
  }
}

function wholeNumber(value: string | null): number | undefined {
  const v = value?.trim() ?? "";
  return /^\d+$/.test(v) ? Number(v) : undefined;
}
