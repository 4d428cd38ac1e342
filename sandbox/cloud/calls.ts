/** Counters of the calls the cloud received, so tests and benchmarks can count what a controller cost. */
import type { CallStats } from "./types.ts";

export class CallCounter {
  #stats: CallStats = { total: 0, failed: 0, byRoute: {} };

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
  }
}
