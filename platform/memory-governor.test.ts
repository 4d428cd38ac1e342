import { describe, expect, test } from "bun:test";
import { startMemoryGovernor, stepFor } from "./memory-governor.ts";

const MIB = 1024 * 1024;

/** A governor on scripted readings; collecting drops the reading to `afterCollect`. */
function scripted(readings: number[], afterCollect: number) {
  let current = readings[0] ?? 0;
  let next = 1;
  const collected: number[] = [];
  const governor = startMemoryGovernor({
    sample: () => current,
    collect: () => {
      collected.push(current);
      current = afterCollect;
    },
    minStepBytes: 16 * MIB,
    ratio: 0.25,
    restEveryMs: 2000,
    setTimeout: () => ({}),
    clearTimeout: () => {},
  });
  const step = () => {
    current = readings[next++] ?? current;
    return governor.tick();
  };
  return { governor, collected, step };
}

describe("memory governor", () => {
  test.each([
    ["a small baseline steps by the minimum", 20 * MIB, 16 * MIB],
    ["a large baseline steps by its share", 200 * MIB, 50 * MIB],
  ])("%s", (_, baseline, want) => {
    expect(stepFor(baseline, 16 * MIB, 0.25)).toBe(want);
  });

  test("collects once the resident set grows past the step, then measures from the new baseline", () => {
    const { governor, collected, step } = scripted(
      [60 * MIB, 70 * MIB, 77 * MIB, 80 * MIB, 90 * MIB, 97 * MIB],
      65 * MIB,
    );
    expect(step()).toBe(false); // 70: 10 MiB over 60
    expect(step()).toBe(true); // 77: 17 MiB over 60
    expect(collected).toEqual([77 * MIB]);
    expect(step()).toBe(false); // 80: 15 over the new 65
    expect(step()).toBe(true); // 90: 25 over 65
    expect(governor.collections).toBe(2);
  });

  test("does nothing at rest", () => {
    const { governor, step } = scripted([60 * MIB, 61 * MIB, 60 * MIB, 62 * MIB, 61 * MIB], 60 * MIB);
    for (let i = 0; i < 4; i++) expect(step()).toBe(false);
    expect(governor.collections).toBe(0);
  });

  test("below its highest reading it never collects, however far above the baseline", () => {
    // At rest the engine's own collections make the resident set rise and fall under the start-up wave's high.
    const { governor, step } = scripted([100 * MIB, 70 * MIB, 95 * MIB, 70 * MIB, 99 * MIB], 70 * MIB);
    for (let i = 0; i < 4; i++) expect(step()).toBe(false);
    expect(governor.collections).toBe(0);
  });

  test("lowers the baseline when memory is returned, so a new high is measured from there", () => {
    const { collected, step } = scripted([100 * MIB, 70 * MIB, 99 * MIB, 105 * MIB], 70 * MIB);
    expect(step()).toBe(false); // fell to 70: the baseline follows
    expect(step()).toBe(false); // 99: 29 over 70, but no new high
    expect(step()).toBe(true); // 105: a new high, 35 over 70 (the step is 17.5)
    expect(collected).toEqual([105 * MIB]);
  });

  test("backs off while the resident set holds still, and reads fast again when it grows", () => {
    const { governor, step } = scripted([60 * MIB, 60 * MIB, 60 * MIB, 60 * MIB, 60 * MIB, 63 * MIB], 60 * MIB);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      step();
      delays.push(governor.nextDelayMs);
    }
    expect(delays).toEqual([500, 1000, 2000, 2000, 250]);
  });

  test("once a new high has settled it collects once, and not again at rest", () => {
    // 70 is a new high, 10 MiB over the baseline: under the step, so no collection while it grows.
    const { collected, step } = scripted([60 * MIB, 70 * MIB, 70 * MIB, 70 * MIB, 70 * MIB, 70 * MIB], 62 * MIB);
    const got = [step(), step(), step(), step(), step()];
    expect(got).toEqual([false, false, false, true, false]); // 250 → 500 → 1000 → 2000: settled
    expect(collected).toEqual([70 * MIB]);
  });

  test("after settling, rising and falling under the high settles nothing", () => {
    const readings = [60, 70, 70, 70, 70, 65, 65, 65, 65, 68, 68, 68, 68].map((m) => m * MIB);
    const { governor, step } = scripted(readings, 50 * MIB);
    for (let i = 1; i < readings.length; i++) step();
    expect(governor.collections).toBe(1); // 70 settled; 65 and 68 are under it
  });

  test("stop clears its timer", () => {
    const cleared: unknown[] = [];
    const handle = { unref: () => {} };
    const governor = startMemoryGovernor({
      sample: () => 0,
      collect: () => {},
      setTimeout: () => handle,
      clearTimeout: (h) => cleared.push(h),
    });
    governor.stop();
    expect(cleared).toEqual([handle]);
  });
});
