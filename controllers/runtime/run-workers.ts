/**
 * Workers draining a `WorkQueue`: the runner half of every controller.
 *
 * The handler's result decides what happens to the item:
 * - `ok` (or nothing returned) → `forget` (its back-off starts over);
 * - `retryAfter(ms)` → added again after exactly `ms`, back-off history kept (upstream's `RetryError` path);
 * - `rateLimited` → added again after the queue's rate-limiter delay.
 * A thrown error is logged once here and treated as `rateLimited`, unless something in its `cause` chain carries a
 * positive `retryAfterMs` (`RetryError`, a 429 `KubeApiError`), which means `retryAfter` that long.
 */
import type { ConsolaInstance } from "consola";
import type { WorkQueue } from "./workqueue.ts";

export type SyncResult =
  | { readonly kind: "ok" }
  | { readonly kind: "retryAfter"; readonly ms: number }
  | { readonly kind: "rateLimited" };

export const SyncResult = {
  ok: { kind: "ok" } as SyncResult,
  retryAfter: (ms: number): SyncResult => ({ kind: "retryAfter", ms }),
  rateLimited: { kind: "rateLimited" } as SyncResult,
} as const;

export type SyncHandler<T> = (item: T, signal: AbortSignal) => Promise<SyncResult | undefined> | SyncResult | undefined;

export interface RunWorkersOptions {
  readonly logger?: ConsolaInstance;
}

/** The first positive `retryAfterMs` found on `err` or its causes. */
export const retryAfterOf = (err: unknown): number | undefined => {
  for (let e: unknown = err, depth = 0; e && depth < 16; depth++) {
    const ms = (e as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === "number" && ms > 0) return ms;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
};

const apply = <T>(queue: WorkQueue<T>, item: T, result: SyncResult): void => {
  switch (result.kind) {
    case "ok":
      queue.forget(item);
      return;
    case "retryAfter":
      queue.addAfter(item, result.ms);
      return;
    case "rateLimited":
      queue.addRateLimited(item);
      return;
  }
};

/**
 * Runs `workers` concurrent workers until `signal` aborts (which shuts the queue down) or the queue is shut down.
 * Resolves when every worker has finished its current item (with zero workers: when `signal` aborts). Items still queued after an abort are not processed.
 */
export const runWorkers = async <T>(
  queue: WorkQueue<T>,
  workers: number,
  handler: SyncHandler<T>,
  signal: AbortSignal,
  { logger }: RunWorkersOptions = {},
): Promise<void> => {
  const stop = () => queue.shutDown();
  if (signal.aborted) stop();
  signal.addEventListener("abort", stop, { once: true });
  const worker = async () => {
    for (;;) {
      const item = await queue.get();
      if (item === undefined) return;
      if (signal.aborted) {
        queue.done(item);
        return;
      }
      try {
        apply(queue, item, (await handler(item, signal)) ?? SyncResult.ok);
      } catch (err) {
        const retryAfter = retryAfterOf(err);
        const message = err instanceof Error ? err.message : String(err);
        if (retryAfter !== undefined) {
          logger?.info(`${queue.name || "queue"}: ${String(item)}: retrying in ${retryAfter}ms: ${message}`);
          queue.addAfter(item, retryAfter);
        } else {
          logger?.error(`${queue.name || "queue"}: error syncing ${String(item)}: ${message}`);
          queue.addRateLimited(item);
        }
      } finally {
        queue.done(item);
      }
    }
  };
  try {
    if (workers <= 0) {
      // Upstream runs zero workers for e.g. `--concurrent-node-syncs=0`, yet the controller still runs until stopped.
      await new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve()),
      );
      return;
    }
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    signal.removeEventListener("abort", stop);
  }
};
