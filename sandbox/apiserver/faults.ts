/**
 * Fault injection for tests and the sandbox: slow or failing requests, dropped or expired watches, compacted
 * history. Rules stay in force until `clear()` (or, for `failNext`, until used up).
 */
import { ApiError, errorForCode, expired } from "./status-errors.ts";
import type { WatchEnd } from "./watch-hub.ts";

export interface RequestMatch {
  /** Upper-case HTTP method; absent ⇒ any. */
  readonly method?: string;
  /** A path prefix (`/api/v1/nodes`) or a pattern tested against path and query; absent ⇒ any. */
  readonly path?: string | RegExp;
}

export interface Failure {
  readonly status: number;
  /** Sent as `Retry-After` and `details.retryAfterSeconds` (useful with 429 and 503). */
  readonly retryAfterSeconds?: number;
  readonly message?: string;
}

interface Rule {
  readonly match: RequestMatch | undefined;
  readonly delayMs?: number;
  readonly failure?: Failure;
  readonly fraction?: number;
  remaining?: number;
}

export interface FaultDeps {
  readonly random: () => number;
  readonly endWatches: (end: WatchEnd) => number;
  readonly compact: () => void;
}

const matches = (m: RequestMatch | undefined, method: string, pathAndQuery: string): boolean => {
  if (!m) return true;
  if (m.method && m.method.toUpperCase() !== method) return false;
  if (m.path === undefined) return true;
  return typeof m.path === "string" ? pathAndQuery.startsWith(m.path) : m.path.test(pathAndQuery);
};

const asFailure = (f: number | Failure): Failure => (typeof f === "number" ? { status: f } : f);

export class Faults {
  readonly #deps: FaultDeps;
  #rules: Rule[] = [];
  #gone: "event" | "http" = "event";

  constructor(deps: FaultDeps) {
    this.#deps = deps;
  }

  /** Delays every matching request by `ms` before it is handled. */
  delay(ms: number, match?: RequestMatch): void {
    this.#rules.push({ match, delayMs: ms });
  }

  /** Fails each matching request with probability `fraction` (0..1). */
  failRate(fraction: number, failure: number | Failure, match?: RequestMatch): void {
    this.#rules.push({ match, failure: asFailure(failure), fraction });
  }

  /** Fails the next `count` matching requests. */
  failNext(count: number, failure: number | Failure, match?: RequestMatch): void {
    this.#rules.push({ match, failure: asFailure(failure), remaining: count });
  }

  /** Closes every open watch stream now, without a final event; returns how many. */
  dropWatches(): number {
    return this.#deps.endWatches({ reason: "dropped" });
  }

  /** Ends every open watch with an ERROR event carrying a 410 Expired Status; returns how many. */
  expireWatches(): number {
    const status = expired("too old resource version: the watch was expired by fault injection").toStatus();
    return this.#deps.endWatches({ reason: "expired", status });
  }

  /** Compacts all history: any watch or consistent list from a version before now gets 410. */
  compact(): void {
    this.#deps.compact();
  }

  /**
   * How a watch from a compacted version is refused: `event` (the real server's way: 200, then one ERROR event
   * with a 410 Status) or `http` (an HTTP 410 answer to the watch request).
   */
  set watchGone(mode: "event" | "http") {
    this.#gone = mode;
  }

  get watchGone(): "event" | "http" {
    return this.#gone;
  }

  clear(): void {
    this.#rules = [];
    this.#gone = "event";
  }

  /** What to do with a request: the delay to apply first, and the error to answer with, if any. */
  check(method: string, pathAndQuery: string): { delayMs: number; error: ApiError | undefined } {
    let delayMs = 0;
    let error: ApiError | undefined;
    for (const rule of this.#rules) {
      if (!matches(rule.match, method, pathAndQuery)) continue;
      if (rule.delayMs !== undefined) delayMs = Math.max(delayMs, rule.delayMs);
      if (!rule.failure || error) continue;
      if (rule.remaining !== undefined) {
        if (rule.remaining <= 0) continue;
        rule.remaining--;
      } else if (rule.fraction !== undefined && this.#deps.random() >= rule.fraction) continue;
      const base = errorForCode(rule.failure.status, rule.failure.retryAfterSeconds);
      error = rule.failure.message ? new ApiError(base.code, base.reason, rule.failure.message, base.details) : base;
    }
    this.#rules = this.#rules.filter((r) => r.remaining === undefined || r.remaining > 0);
    return { delayMs, error };
  }
}
