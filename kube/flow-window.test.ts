import { describe, expect, test } from "bun:test";
import {
  type FlowOutcome,
  type FlowWindow,
  hasRoom,
  INITIAL_WINDOW,
  isBusy,
  openWindow,
  outcomeOf,
  settle,
  slotsOf,
  type Ticket,
  ticketFor,
} from "./flow-window.ts";

/** A window past slow start unless `threshold` says otherwise. */
const win = (size: number, max = 32, round = 0, threshold = 0): FlowWindow => ({ size, max, round, threshold });
const ticket = (over: Partial<Ticket> = {}): Ticket => ({ round: 0, slots: 4, ...over });

describe("a flow's window settles each answer", () => {
  const cases: ReadonlyArray<{
    name: string;
    window: FlowWindow;
    ticket: Ticket;
    outcome: FlowOutcome;
    busy?: boolean;
    size: number;
    threshold?: number;
    round: number;
    pause: boolean;
  }> = [
    {
      name: "a rejection halves the window, ends slow start there and starts a new round",
      window: win(32, 32, 0, 32),
      ticket: ticket({ slots: 32 }),
      outcome: "rejected",
      size: 16,
      threshold: 16,
      round: 1,
      pause: false,
    },
    {
      name: "in slow start, a success while the flow uses its whole window grows it by one",
      window: win(4, 32, 0, 32),
      ticket: ticket(),
      busy: true,
      outcome: "accepted",
      size: 5,
      round: 0,
      pause: false,
    },
    {
      name: "a rejection never takes the window below one request",
      window: win(1.5),
      ticket: ticket({ slots: 1 }),
      outcome: "rejected",
      size: 1,
      round: 1,
      pause: true,
    },
    {
      name: "a rejection of a request sent alone pauses the flow for Retry-After",
      window: win(1),
      ticket: ticket({ slots: 1 }),
      outcome: "rejected",
      size: 1,
      round: 1,
      pause: true,
    },
    {
      name: "a rejection of a request sent before the window last shrank does not shrink it again",
      window: win(16, 32, 1),
      ticket: ticket({ round: 0, slots: 32 }),
      outcome: "rejected",
      size: 16,
      round: 1,
      pause: false,
    },
    {
      name: "a stale rejection of a request sent alone still pauses the flow",
      window: win(1, 32, 3),
      ticket: ticket({ round: 2, slots: 1 }),
      outcome: "rejected",
      size: 1,
      round: 3,
      pause: true,
    },
    {
      name: "a success while the flow uses its whole window grows it by one over its size",
      window: win(4),
      ticket: ticket(),
      busy: true,
      outcome: "accepted",
      size: 4.25,
      round: 0,
      pause: false,
    },
    {
      name: "a success with room to spare leaves the window as it is",
      window: win(4),
      ticket: ticket(),
      busy: false,
      outcome: "accepted",
      size: 4,
      round: 0,
      pause: false,
    },
    {
      name: "the window never grows past its maximum",
      window: win(31.99),
      ticket: ticket(),
      busy: true,
      outcome: "accepted",
      size: 32,
      round: 0,
      pause: false,
    },
    {
      name: "a 5xx, a transport failure or a watch leaves the window as it is",
      window: win(3, 32, 2),
      ticket: ticket({ round: 2, slots: 1 }),
      outcome: "neutral",
      busy: true,
      size: 3,
      round: 2,
      pause: false,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const step = settle(c.window, c.ticket, c.outcome, c.busy ?? true);
      expect(step.window.size).toBeCloseTo(c.size, 9);
      expect(step.window.round).toBe(c.round);
      if (c.threshold !== undefined) expect(step.window.threshold).toBe(c.threshold);
      expect(step.window.max).toBe(c.window.max);
      expect(step.pause).toBe(c.pause);
    });
  }
});

describe("answers as outcomes", () => {
  test.each([
    [429, false, "rejected"],
    [200, false, "accepted"],
    [201, false, "accepted"],
    [404, false, "accepted"],
    [409, false, "accepted"],
    [500, false, "neutral"],
    [503, false, "neutral"],
    [undefined, false, "neutral"],
    [200, true, "neutral"],
    [429, true, "neutral"],
  ] as const)("status %p (long-running %p) is %s", (status, longRunning, outcome) => {
    expect(outcomeOf(status, longRunning)).toBe(outcome);
  });
});

describe("slots and tickets", () => {
  test("a new window starts at a few slots, at most its maximum, at least one", () => {
    expect(openWindow(32)).toEqual({ size: INITIAL_WINDOW, max: 32, threshold: 32, round: 0 });
    expect(slotsOf(openWindow(2))).toBe(2);
    expect(slotsOf(openWindow(0))).toBe(1);
    expect(slotsOf(openWindow(2.7))).toBe(2);
  });

  test("slow start opens a busy window to its maximum within a few rounds", () => {
    let w = openWindow(32);
    let rounds = 0;
    while (slotsOf(w) < 32) {
      for (const t of Array.from({ length: slotsOf(w) }, () => ticketFor(w))) w = settle(w, t, "accepted", true).window;
      rounds++;
    }
    expect(rounds).toBe(3); // 4 → 8 → 16 → 32
  });

  test("a fractional window lets out its whole part", () => {
    expect(slotsOf(win(2.9))).toBe(2);
    expect(hasRoom(win(2.9), 1)).toBe(true);
    expect(hasRoom(win(2.9), 2)).toBe(false);
  });

  test("a ticket carries the window's round and slots", () => {
    expect(ticketFor(win(3.5, 32, 5))).toEqual({ round: 5, slots: 3 });
  });

  test("a flow is busy when its requests fill the window or others wait for a slot", () => {
    expect(isBusy(win(3), 3, 0)).toBe(true);
    expect(isBusy(win(3), 1, 2)).toBe(true);
    expect(isBusy(win(3), 2, 0)).toBe(false);
  });

  test("under a level that seats two, rejections keep the window near two, never at zero", () => {
    // A level with two seats and no queue: more than two out at once, the rest are rejected.
    let w = openWindow(32);
    const seats = 2;
    const sizes: number[] = [];
    for (let step = 0; step < 400; step++) {
      const slots = slotsOf(w);
      const tickets = Array.from({ length: slots }, () => ticketFor(w));
      tickets.forEach((t, i) => {
        w = settle(w, t, i < seats ? "accepted" : "rejected", true).window;
      });
      sizes.push(slotsOf(w));
    }
    const late = sizes.slice(100);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...late)).toBeLessThanOrEqual(seats + 1);
  });
});
