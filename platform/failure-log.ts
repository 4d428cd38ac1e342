/**
 * One repeating failure, logged without flooding: the first occurrence at once with its cause, then at most one
 * line per back-off step (the step doubles from `firstStepMs` up to `maxStepMs`), carrying the latest cause and
 * how many failures went unlogged; and one line when it recovers. An operator sees the real cause at once and
 * a heartbeat after, never a line per retry.
 */
import type { ConsolaInstance } from "consola";
import type { Now } from "../kube/clock.ts";

export interface FailureLog {
  /** Records one failure; logs it if it is the first, or if the current back-off step has run out. */
  failed(err: unknown): void;
  /** Ends a failing streak (logged once, at info); a no-op while nothing failed. */
  recovered(): void;
}

export interface FailureLogOptions {
  /** What failed, the start of every line: `cannot reach the Kubernetes API server`. */
  readonly what: string;
  readonly logger: ConsolaInstance;
  readonly now: Now;
  /** Default 1 s. */
  readonly firstStepMs?: number;
  /** Default 5 min. */
  readonly maxStepMs?: number;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const createFailureLog = ({
  what,
  logger,
  now,
  firstStepMs = 1000,
  maxStepMs = 300_000,
}: FailureLogOptions): FailureLog => {
  let failures = 0;
  let unlogged = 0;
  let stepMs = firstStepMs;
  let nextAt = 0;
  return {
    failed(err) {
      failures++;
      const at = now();
      if (failures > 1 && at < nextAt) {
        unlogged++;
        return;
      }
      const since = unlogged > 0 ? ` (${unlogged} more failure${unlogged === 1 ? "" : "s"} since the last line)` : "";
      logger.error(`${what}: ${messageOf(err)}${since}`);
      unlogged = 0;
      if (failures > 1) stepMs = Math.min(stepMs * 2, maxStepMs);
      nextAt = at + stepMs;
    },
    recovered() {
      if (failures === 0) return;
      logger.info(`${what}: recovered after ${failures} failure${failures === 1 ? "" : "s"}`);
      failures = 0;
      unlogged = 0;
      stepMs = firstStepMs;
    },
  };
};
