/**
 * The concurrency window of one flow of requests — one client of the manager: a controller's, the shared informers',
 * the event recorder's, leader election's — under the API server's rejections: additive increase, multiplicative
 * decrease (AIMD), pure. The pacing (pacing.ts) holds one window per client and asks it before and after each request.
 *
 * API Priority and Fairness answers 429 when a priority level has neither a free seat nor queue room for the request.
 * Upstream's answer to that is one request at a time per worker and client-go's wait of the 429's `Retry-After`
 * before trying again (k8s.io/client-go/rest `Request.request`, `checkWait`); ours runs many workers, so the window
 * bounds how many of a flow's requests are out at once and adapts it to what the level admits:
 *
 * - A flow starts with a few requests at once (`INITIAL_WINDOW`) and, until its first 429, doubles per window of
 *   successes (slow start): a healthy server opens the window to its maximum within a few round trips, a level
 *   with three seats rejects a handful of requests, not a whole window of them.
 * - A 429 halves the window, never below one request at a time (upstream's pace), and growth past that half is
 *   additive from then on. Only the first 429 of a round counts: a 429 to a request sent before the window last
 *   shrank answers the load that already shrank it.
 * - A 429 to a request sent while the window held one request means even one at a time is too many: the flow then
 *   waits the answer's `Retry-After` before its next request, as client-go does. Other flows go on.
 * - Any other answer below 500 while the flow uses its whole window (every slot taken, or requests waiting for
 *   one) grows it by one below the threshold (slow start), by 1/size above it (one request more per window of
 *   successes), up to its maximum. A flow with room to
 *   spare proves nothing about the server's room, so it does not grow the window (an unused window would otherwise
 *   burst later).
 * - A 5xx, no answer (a transport failure, an abort) or a long-running request (a watch, which APF does not seat
 *   past its start): no change.
 */

export interface FlowWindow {
  /** Requests that may be out at once, fractional while it grows; `slots` is what holds. */
  readonly size: number;
  readonly max: number;
  /** Below it the window grows by one per success, above it by 1/size; a 429 sets it to half the window. */
  readonly threshold: number;
  /** How many times the window has shrunk: a request carries the round it was sent in. */
  readonly round: number;
}

/** Requests a flow may have out at once before any answer. */
export const INITIAL_WINDOW = 4;

/** What the window was when one request went out. */
export interface Ticket {
  readonly round: number;
  /** The window's slots when the request went out. */
  readonly slots: number;
}

export type FlowOutcome = "rejected" | "accepted" | "neutral";

export interface FlowStep {
  readonly window: FlowWindow;
  /** The flow waits the answer's `Retry-After` before its next request. */
  readonly pause: boolean;
}

/** A new flow's window: `INITIAL_WINDOW` requests (at most `max`, at least one), growing towards `max`. */
export function openWindow(max: number): FlowWindow {
  const m = Math.max(1, Math.floor(max));
  return { size: Math.min(m, INITIAL_WINDOW), max: m, threshold: m, round: 0 };
}

/** The requests the window lets out at once: never fewer than one. */
export const slotsOf = (w: FlowWindow): number => Math.max(1, Math.floor(w.size));

/** Whether another request may go with `inFlight` already out. */
export const hasRoom = (w: FlowWindow, inFlight: number): boolean => inFlight < slotsOf(w);

/** The ticket of a request taking a slot. */
export const ticketFor = (w: FlowWindow): Ticket => ({ round: w.round, slots: slotsOf(w) });

/** The flow uses its whole window: `inFlight` (the answered request included) fill it, or `waiting` want a slot. */
export const isBusy = (w: FlowWindow, inFlight: number, waiting: number): boolean =>
  waiting > 0 || inFlight >= slotsOf(w);

/** An answer's meaning to the window: its HTTP status, undefined when none came. */
export function outcomeOf(status: number | undefined, longRunning = false): FlowOutcome {
  if (status === undefined || longRunning) return "neutral";
  if (status === 429) return "rejected";
  return status < 500 ? "accepted" : "neutral";
}

/** The window after the answer to the request that held `ticket`; `busy`: the flow uses its whole window (isBusy). */
export function settle(w: FlowWindow, ticket: Ticket, outcome: FlowOutcome, busy: boolean): FlowStep {
  switch (outcome) {
    case "rejected": {
      const pause = ticket.slots <= 1;
      if (ticket.round !== w.round) return { window: w, pause };
      const half = Math.max(1, w.size / 2);
      return { window: { ...w, size: half, threshold: half, round: w.round + 1 }, pause };
    }
    case "accepted": {
      if (!busy || w.size >= w.max) return { window: w, pause: false };
      const step = w.size < w.threshold ? 1 : 1 / w.size;
      return { window: { ...w, size: Math.min(w.max, w.size + step) }, pause: false };
    }
    case "neutral":
      return { window: w, pause: false };
  }
}
