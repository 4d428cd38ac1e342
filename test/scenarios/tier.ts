/**
 * End-to-end scenarios written once and run by two tiers: `npm test` on the API emulator (test/*.e2e.test.ts,
 * `startSandbox`) and `npm run test:real` on a real kube-apiserver (test/real/*.real.ts, `startRealCluster`). A
 * tier file names itself, says how to start its cluster, states what it cannot show (with the reason), and may add
 * tests of its own.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import type { TestCluster } from "../support/cluster.ts";

/** What the scenarios of one file share between their tests: the cluster (set before the first test) and more. */
export interface ScenarioRun {
  cluster: TestCluster;
}

export interface ScenarioTier<R extends ScenarioRun> {
  /** The `describe` block's name. */
  readonly title: string;
  /** Starts the tier's cluster with `nodes` machines, each with its (simulated) kubelet's Node. */
  start(nodes: number): Promise<TestCluster>;
  /** Room for `start` (building or starting a real API server takes longer than the emulator). */
  readonly startTimeoutMs: number;
  /** The tier's own tests, registered after the shared ones, on the same cluster and run. */
  readonly more?: (run: R) => void;
}

/**
 * One `describe` block on a cluster of `nodes` the tier starts before it (then `ready`, such as starting a
 * manager) and stops after it: the shared scenarios, then the tier's own tests.
 */
export function describeOnTier<R extends ScenarioRun>(
  tier: ScenarioTier<R>,
  run: R,
  setUp: { readonly nodes: number; readonly ready?: (run: R) => Promise<void> },
  scenarios: (run: R) => void,
): void {
  beforeAll(async () => {
    run.cluster = await tier.start(setUp.nodes);
    await setUp.ready?.(run);
  }, tier.startTimeoutMs);

  afterAll(async () => {
    await run.cluster?.stop();
  });

  describe(tier.title, () => {
    scenarios(run);
    tier.more?.(run);
  });
}

/** A scenario as a test; with a reason, as a skipped test whose name carries the reason. */
export function scenarioTest(
  name: string,
  skipReason: string | undefined,
  fn: () => Promise<void>,
  timeoutMs?: number,
): void {
  if (skipReason === undefined) test(name, fn, timeoutMs);
  else test.skip(`${name} (${skipReason})`, () => {});
}
