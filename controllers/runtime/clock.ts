/**
 * Time as the runtime sees it. Everything that waits or timestamps takes these functions, so tests drive time
 * with `testing/fake-clock.ts` instead of sleeping.
 */

/** Milliseconds since the Unix epoch. */
export type Now = () => number;

/**
 * Wait `ms` milliseconds. Resolves early (never rejects) when `signal` aborts, and then releases its timer, so a
 * loop can always `await sleep(…, signal)` and check the signal afterwards.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Run `fn` once after `ms`; the returned function cancels it (a no-op once it ran). */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface Clock {
  readonly now: Now;
  readonly sleep: Sleep;
  readonly setTimer: SetTimer;
}

const setTimer: SetTimer = (fn, ms) => {
  const handle = setTimeout(fn, Math.max(0, ms));
  return () => clearTimeout(handle);
};

/** `sleep` built on any `setTimer`, honouring the abort contract of `Sleep`. */
export const sleepWith =
  (timer: SetTimer): Sleep =>
  (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        cancel();
        resolve();
      };
      const cancel = timer(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: sleepWith(setTimer),
  setTimer,
};
