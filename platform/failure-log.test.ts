import { describe, expect, test } from "bun:test";
import { createFailureLog } from "./failure-log.ts";
import { captureLogger } from "./testing/logger.ts";

/** Runs `events` (a failure at a time in ms, or "recovered") and returns what was logged. */
const logged = (events: readonly (number | "recovered")[]) => {
  const { logger, logs } = captureLogger();
  let t = 0;
  let n = 0;
  const log = createFailureLog({ what: "cannot reach the API", logger, now: () => t, firstStepMs: 1000 });
  for (const e of events) {
    if (e === "recovered") {
      log.recovered();
      continue;
    }
    t = e;
    log.failed(new Error(`cause ${++n}`));
  }
  return logs.map((l) => `${l.type} ${l.message}`);
};

describe("createFailureLog", () => {
  test("logs the first failure at once, with its cause", () => {
    expect(logged([0])).toEqual(["error cannot reach the API: cause 1"]);
  });

  test("logs nothing on recovery when nothing failed", () => {
    expect(logged(["recovered"])).toEqual([]);
  });

  test("logs at most once per back-off step, doubling, with the latest cause and the count left out", () => {
    // Steps: 1 s, then 2 s, then 4 s.
    const every500ms = Array.from({ length: 16 }, (_, i) => i * 500);
    expect(logged(every500ms)).toEqual([
      "error cannot reach the API: cause 1",
      "error cannot reach the API: cause 3 (1 more failure since the last line)",
      "error cannot reach the API: cause 7 (3 more failures since the last line)",
      "error cannot reach the API: cause 15 (7 more failures since the last line)",
    ]);
  });

  test("says when it recovers, and logs the next failure at once", () => {
    expect(logged([0, 100, "recovered", 200])).toEqual([
      "error cannot reach the API: cause 1",
      "info cannot reach the API: recovered after 2 failures",
      "error cannot reach the API: cause 3",
    ]);
  });
});
