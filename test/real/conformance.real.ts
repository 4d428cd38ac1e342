/**
 * The API emulator (sandbox/apiserver) against a real kube-apiserver (1.20.2): the same list of API interactions
 * (conformance/interactions-*.ts) runs on both, every answer is normalised (uids, resource versions, timestamps,
 * allocated addresses) and compared field by field. Every difference is printed; the check fails on one that
 * conformance/accepted-differences.ts does not explain, and on an accepted difference that no longer occurs.
 * Accepted differences are printed grouped; CCM_CONFORMANCE_VERBOSE=1 prints each one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { START_TIMEOUT_MS } from "./cluster.ts";
import { ACCEPTED } from "./conformance/accepted-differences.ts";
import { compareObservations, type Difference, explain, report } from "./conformance/compare.ts";
import { BASIC } from "./conformance/interactions-basic.ts";
import { WRITES } from "./conformance/interactions-writes.ts";
import { startEmulatorTarget, startRealTarget, type Target } from "./conformance/targets.ts";

const INTERACTIONS = [...BASIC, ...WRITES];
let emulator: Target;
let real: Target;
let diffs: Difference[] = [];

async function runAll(t: Target): Promise<void> {
  for (const interaction of INTERACTIONS) {
    let n = 0;
    await interaction.run(t, (step) => `${interaction.name} / ${++n}. ${step}`);
  }
}

beforeAll(async () => {
  [emulator, real] = await Promise.all([startEmulatorTarget(), startRealTarget()]);
  await runAll(emulator);
  await runAll(real);
  diffs = compareObservations(emulator.observations, real.observations);
  console.log(
    `emulator vs kube-apiserver 1.20.2: ${real.observations.length} answers compared, ${diffs.length} differences\n${report(diffs, ACCEPTED, process.env.CCM_CONFORMANCE_VERBOSE === "1")}`,
  );
}, START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([emulator?.stop(), real?.stop()]);
});

describe("the API emulator against a real API server", () => {
  test("both answered every step of every interaction", () => {
    expect(emulator.observations.map((o) => o.step)).toEqual(real.observations.map((o) => o.step));
    expect(real.observations.length).toBeGreaterThan(50);
  });

  test("every difference is an accepted one", () => {
    const unexplained = diffs.filter((d) => !explain(d, ACCEPTED));
    expect(report(unexplained, ACCEPTED)).toBe("");
  });

  test("every accepted difference still occurs (the list holds no stale excuses)", () => {
    const unused = ACCEPTED.filter((a) => !diffs.some((d) => explain(d, [a]) === a));
    expect(unused).toEqual([]);
  });
});
