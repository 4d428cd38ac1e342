/**
 * A manual clock for tests: time moves only when the test calls `advance`, and timers fire in time order.
 * Between timers `advance` lets woken async code run to its next wait (a few macrotask turns), so chains like
 * "sleep, request, sleep again" progress deterministically within one `advance` call.
 */
import { type Clock, type SetTimer, type Sleep, sleepWith } from "../clock.ts";

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** Lets every promise chain that does not wait on real I/O or real timers run until it blocks again. */
export const settle = async (turns = 3): Promise<void> => {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start: number | string = "2026-01-01T00:00:00Z") {
    this.#now = typeof start === "number" ? start : Date.parse(start);
  }

  readonly now = (): number => this.#now;

  readonly setTimer: SetTimer = (fn, ms) => {
    const timer: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  };

  readonly sleep: Sleep = sleepWith(this.setTimer);

  /** Timers not yet fired (sleepers included). */
  pending(): number {
    return this.#timers.length;
  }

  /** When the earliest pending timer fires, if any. */
  nextAt(): number | undefined {
    return this.#earliest()?.at;
  }

  /** Moves time forward by `ms`, firing due timers in order and settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > end) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = end;
    await settle();
  }

  /** Advances to the next pending timer (fires it and whatever is due at the same instant). */
  async advanceToNext(): Promise<void> {
    const next = this.#earliest();
    if (next) await this.advance(next.at - this.#now);
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }
}

/**
 * Waits (in real time) until `condition` holds, polling on macrotask turns; fails after `timeoutMs`.
 * For code that does real I/O (servers, sockets). Generous by default: CI machines are slow.
 */
export const waitFor = async (
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 20_000, message = "condition" }: { timeoutMs?: number; message?: string } = {},
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${message}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
};
