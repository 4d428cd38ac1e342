/**
 * Time as every floor reads it: the Kubernetes client's pacing and informers, the platform's recorder and
 * leader election, the controllers' queues. Everything that waits or timestamps takes these functions (or one
 * `Clock` carrying all three), so tests drive time with `testdata/fake-clock.ts` instead of sleeping. The ground
 * floor is the lowest one that waits, so the one implementation lives here.
 */

/** Milliseconds since the Unix epoch. */
export type Now = () => number;

/**
 * Waits `ms`. When `signal` aborts it resolves early (releasing its timer) and never rejects, so a loop can always
 * `await sleep(…, signal)` and check the signal afterwards.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Run `fn` once after `ms`; the returned function cancels it (a no-op once it ran). */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface Clock {
  readonly now: Now;
  readonly sleep: Sleep;
  readonly setTimer: SetTimer;
}

/**
 * The longest delay one runtime timer holds (2^31-1 ms, about 24.8 days); a longer one fires after 1 ms instead,
 * which turns a periodic loop into a busy loop. Duration flags are bounded by it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real timer. A delay beyond `MAX_TIMER_MS` is waited out in steps, never shortened. */
export const setTimer: SetTimer = (fn, ms) => {
  let handle: ReturnType<typeof setTimeout>;
  const arm = (left: number) => {
    handle =
      left > MAX_TIMER_MS
        ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS)
        : setTimeout(fn, Math.max(0, left));
  };
  arm(ms);
  return () => clearTimeout(handle);
};

/** `Sleep` built on any `SetTimer` (a fake clock's too), honouring the abort contract above. */
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

/** `Sleep` on the real timer. */
export const abortableSleep: Sleep = sleepWith(setTimer);

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
  setTimer,
};
