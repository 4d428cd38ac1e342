/**
 * Counters of the calls the cloud received, so tests and benchmarks can count what a controller cost, and a log of
 * the writes (every method but GET and HEAD) with who sent them and when, so a test can tell which manager wrote what
 * and whether two managers' writes overlapped.
 */
import type { CallStats } from "./types.ts";

/** One write as the cloud saw it: received (before any injected latency) and answered, in ms since the epoch. */
export interface WriteRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly userAgent: string;
  readonly receivedAt: number;
  readonly answeredAt: number;
}

/** The log keeps the latest writes only, so a long-running sandbox does not grow without bound. */
export const WRITE_LOG_LIMIT = 10_000;

export class CallCounter {
  #stats: CallStats = { total: 0, failed: 0, byRoute: {} };
  #writes: WriteRecord[] = [];

  /** Log one answered write. */
  recordWrite(record: WriteRecord): void {
    this.#writes.push(record);
    if (this.#writes.length > WRITE_LOG_LIMIT) this.#writes.splice(0, this.#writes.length - WRITE_LOG_LIMIT);
  }

  /** The logged writes, oldest first. */
  writes(): readonly WriteRecord[] {
    return [...this.#writes];
  }

  /** Count one answered call; `route` is the matched pattern (`/v1/machines/:id`), not the concrete path. */
  record(method: string, route: string, status: number): void {
    const key = `${method} ${route}`;
    const entry = this.#stats.byRoute[key] ?? { calls: 0, failed: 0 };
    const failed = status >= 400 ? 1 : 0;
    entry.calls++;
    entry.failed += failed;
    this.#stats.byRoute[key] = entry;
    this.#stats.total++;
    this.#stats.failed += failed;
  }

  /** Calls received for one `METHOD /route` key (0 when none). */
  count(key: string): number {
    return this.#stats.byRoute[key]?.calls ?? 0;
  }

  snapshot(): CallStats {
    return structuredClone(this.#stats);
  }

  reset(): void {
    this.#stats = { total: 0, failed: 0, byRoute: {} };
    this.#writes = [];
  }
}
