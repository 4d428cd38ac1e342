/**
 * Fault injection for the simulated cloud: latency, a random error rate, a token-bucket rate limit and
 * "fail the next N calls" rules. The random source and the clock are injected so tests can repeat a run exactly.
 */
import type { Random } from "./random.ts";
import type { FailRule, FaultConfig } from "./types.ts";

/** What the cloud answers instead of doing the call. */
export interface InjectedFailure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

export interface FaultsDeps {
  readonly random: Random;
  /** Milliseconds, monotonic enough for the token bucket. */
  readonly now: () => number;
}

export const noFaults: FaultConfig = Object.freeze({ latencyMs: 0, errorRate: 0, rateLimit: null, failNext: [] });

export class Faults {
  readonly #deps: FaultsDeps;
  #config: FaultConfig = structuredClone(noFaults);
  #tokens = 0;
  #refilledAt = 0;

  constructor(deps: FaultsDeps) {
    this.#deps = deps;
  }

  /** The current configuration, with the counts that `failNext` rules have left. */
  get(): FaultConfig {
    return structuredClone(this.#config);
  }

  /** Replace the whole configuration; fields not given take their no-fault values. Refills the rate-limit bucket. */
  set(config: Partial<FaultConfig>): FaultConfig {
    this.#config = {
      ...structuredClone(noFaults),
      ...structuredClone(config),
      failNext: (config.failNext ?? []).map((r) => (r.method ? { ...r, method: r.method.toUpperCase() } : { ...r })),
    };
    this.#tokens = this.#config.rateLimit?.burst ?? 0;
    this.#refilledAt = this.#deps.now();
    return this.get();
  }

  /** Remove every fault. */
  reset(): void {
    this.set({});
  }

  get latencyMs(): number {
    return this.#config.latencyMs;
  }

  /**
   * Decide the fate of one call, in this order: rate limit (429), the first matching `failNext` rule, the error
   * rate (500). Undefined ⇒ the call goes through. A call refused by the rate limit does not consume a rule.
   */
  check(method: string, path: string): InjectedFailure | undefined {
    const limited = this.#takeToken();
    if (limited) return limited;
    const rule = this.#config.failNext.find((r) => matches(r, method, path));
    if (rule) {
      rule.count--;
      if (rule.count <= 0) this.#config.failNext = this.#config.failNext.filter((r) => r !== rule);
      const retryAfterSeconds = rule.retryAfterSeconds ?? (rule.status === 429 ? 1 : undefined);
      const failure = { status: rule.status, code: "InjectedFault", message: `injected by failNext (${rule.status})` };
      return retryAfterSeconds === undefined ? failure : { ...failure, retryAfterSeconds };
    }
    if (this.#config.errorRate > 0 && this.#deps.random() < this.#config.errorRate) {
      return { status: 500, code: "InternalError", message: "injected by errorRate" };
    }
    return undefined;
  }

  #takeToken(): InjectedFailure | undefined {
    const limit = this.#config.rateLimit;
    if (!limit) return undefined;
    const now = this.#deps.now();
    this.#tokens = Math.min(limit.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * limit.qps);
    this.#refilledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return undefined;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - this.#tokens) / limit.qps));
    const message = `rate limit of ${limit.qps} calls/s (burst ${limit.burst}) exceeded`;
    return { status: 429, code: "RateLimited", message, retryAfterSeconds };
  }
}

function matches(rule: FailRule, method: string, path: string): boolean {
  return (rule.method === undefined || rule.method === method) && path.startsWith(rule.pathPrefix);
}
