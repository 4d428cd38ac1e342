import { describe, expect, test } from "bun:test";
import { MAX_TIMER_MS, setTimer } from "./clock.ts";

describe("setTimer", () => {
  // A runtime timer given more than 2^31-1 ms fires after 1 ms; a 20 ms timer armed later must still come first.
  test.each([
    ["just beyond the runtime's limit", MAX_TIMER_MS + 1],
    ["far beyond it", 3.6e18],
  ])("does not fire early for a delay %s", async (_name, ms) => {
    let fired = false;
    const cancel = setTimer(() => {
      fired = true;
    }, ms);
    await new Promise<void>((resolve) => setTimer(resolve, 20));
    cancel();
    expect(fired).toBe(false);
  });

  test("fires a short delay and can be cancelled before it does", async () => {
    const order: string[] = [];
    const cancel = setTimer(() => order.push("cancelled"), 5);
    cancel();
    await new Promise<void>((resolve) =>
      setTimer(() => {
        order.push("fired");
        resolve();
      }, 10),
    );
    expect(order).toEqual(["fired"]);
  });
});
