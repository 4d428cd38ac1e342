/**
 * The rate limit Hetzner and DigitalOcean both publish: one bucket per account (here: the emulator's one token),
 * `limit` requests full, refilled continuously at `perHour` (Hetzner: 3600 ⇒ one a second; DigitalOcean: 5000).
 * Every answer to an authenticated call carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (the Unix time in seconds when the bucket is full again); a call that finds it empty gets the cloud's 429.
 */

export interface RateLimitConfig {
  /** The bucket's size. */
  readonly limit: number;
  /** Refill per hour; `limit` refills the whole bucket in an hour. */
  readonly perHour: number;
}

export interface RateLimitVerdict {
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
}

export class RateLimitBucket {
  readonly #now: () => number;
  #config: RateLimitConfig;
  #tokens: number;
  #at: number;

  /** `now` in milliseconds since the epoch; the bucket starts full. */
  constructor(now: () => number, config: RateLimitConfig) {
    this.#now = now;
    this.#config = config;
    this.#tokens = config.limit;
    this.#at = now();
  }

  get config(): RateLimitConfig {
    return this.#config;
  }

  /** A new size and refill rate, with the bucket full. */
  set(config: RateLimitConfig): void {
    this.#config = config;
    this.#tokens = config.limit;
    this.#at = this.#now();
  }

  /** Takes one token if there is one; the headers say what is left either way. */
  take(): RateLimitVerdict {
    this.#refill();
    const allowed = this.#tokens >= 1;
    if (allowed) this.#tokens -= 1;
    return { allowed, headers: this.#headers() };
  }

  /** The headers without taking a token. */
  peek(): Record<string, string> {
    this.#refill();
    return this.#headers();
  }

  #refill(): void {
    const now = this.#now();
    const perMs = this.#config.perHour / 3_600_000;
    this.#tokens = Math.min(this.#config.limit, this.#tokens + Math.max(0, now - this.#at) * perMs);
    this.#at = now;
  }

  #headers(): Record<string, string> {
    const { limit, perHour } = this.#config;
    const missing = limit - this.#tokens;
    const fullAtMs = this.#at + (perHour > 0 ? (missing * 3_600_000) / perHour : 0);
    return {
      "ratelimit-limit": String(limit),
      "ratelimit-remaining": String(Math.floor(this.#tokens)),
      "ratelimit-reset": String(Math.ceil(fullAtMs / 1000)),
    };
  }
}
