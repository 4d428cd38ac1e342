/**
 * The Robot webservice's request limits (/work/shared/reference/hetzner-robot-api.md §1.2): per webservice user
 * and endpoint group, a number of requests per interval, counted over a sliding window; and the lock-out of a
 * client address after three failed logins in a row, for ten minutes. The clock is injected.
 */

/** One endpoint group's limit, as Robot states it in its 403 answer (`max_request`, `interval` in seconds). */
export interface RequestLimit {
  readonly maxRequests: number;
  readonly intervalSeconds: number;
}

/** The documented limits; `GET /server*` and `POST /server/{n}` share one budget, as do the `GET /reset*` calls. */
export const robotLimits = {
  server: { maxRequests: 200, intervalSeconds: 3600 },
  reset: { maxRequests: 500, intervalSeconds: 3600 },
  resetPost: { maxRequests: 50, intervalSeconds: 3600 },
} satisfies Record<string, RequestLimit>;

export type LimitGroup = keyof typeof robotLimits;

export class RequestLimits {
  readonly #now: () => number;
  readonly #limits: Record<LimitGroup, RequestLimit>;
  /** `user group` → the times of the requests still inside the window. */
  readonly #seen = new Map<string, number[]>();

  constructor(now: () => number, limits: Partial<Record<LimitGroup, RequestLimit>> = {}) {
    this.#now = now;
    this.#limits = { ...robotLimits, ...limits };
  }

  limit(group: LimitGroup): RequestLimit {
    return this.#limits[group];
  }

  /** Counts one request; the limit it broke, or `undefined` when it may be answered. A refused request counts not. */
  take(user: string, group: LimitGroup): RequestLimit | undefined {
    const limit = this.#limits[group];
    const key = `${user} ${group}`;
    const now = this.#now();
    const times = (this.#seen.get(key) ?? []).filter((t) => t > now - limit.intervalSeconds * 1000);
    if (times.length >= limit.maxRequests) {
      this.#seen.set(key, times);
      return limit;
    }
    times.push(now);
    this.#seen.set(key, times);
    return undefined;
  }

  /** Every budget full again. */
  reset(): void {
    this.#seen.clear();
  }
}

/** Robot blocks a client address for 10 minutes after 3 failed logins. */
export const LOCKOUT_AFTER_FAILURES = 3;
export const LOCKOUT_MS = 10 * 60_000;

export class LoginLockout {
  readonly #now: () => number;
  readonly #failures = new Map<string, { count: number; blockedUntil: number }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** When the address may log in again, or `undefined` when it is not blocked. */
  blockedUntil(address: string): number | undefined {
    const entry = this.#failures.get(address);
    return entry && entry.blockedUntil > this.#now() ? entry.blockedUntil : undefined;
  }

  failed(address: string): void {
    const entry = this.#failures.get(address) ?? { count: 0, blockedUntil: 0 };
    entry.count++;
    if (entry.count >= LOCKOUT_AFTER_FAILURES) {
      entry.blockedUntil = this.#now() + LOCKOUT_MS;
      entry.count = 0;
    }
    this.#failures.set(address, entry);
  }

  succeeded(address: string): void {
    this.#failures.delete(address);
  }

  reset(): void {
    this.#failures.clear();
  }
}
