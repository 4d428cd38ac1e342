/**
 * Time as the runtime sees it. Everything that waits or timestamps takes these functions, so tests drive time
 * with `testing/fake-clock.ts` instead of sleeping. The primitives live in kube/sleep.ts (the lower layer).
 */
import { abortableSleep, type Now, type SetTimer, type Sleep, setTimer, sleepWith } from "../../kube/sleep.ts";

export { type Now, type SetTimer, type Sleep, sleepWith };

export interface Clock {
  readonly now: Now;
  readonly sleep: Sleep;
  readonly setTimer: SetTimer;
}

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
  setTimer,
};
