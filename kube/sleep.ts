/** The clock the Kubernetes layer reads; injected so tests can drive time instead of waiting for it. */
export type Now = () => number;

/**
 * Waits `ms`. When `signal` aborts it resolves early and never rejects (the same contract as
 * controllers/runtime/clock.ts, so the runtime's clock can be passed in); callers check the signal afterwards.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
