/**
 * `npx bun scripts/bench/upstream/index.ts`: ours beside upstream's Go cloud-controller-manager 1.20 (with its fake
 * cloud, built by ./build.ts from Debian's source package) on the same real kube-apiserver 1.20.2 of the `test:real`
 * tier, alternating run by run. A benchmark, not a test. Prints a Markdown table (docs/performance.md keeps one).
 *
 *   npx bun scripts/bench/upstream/index.ts                     start-up, idle RSS, 200 and 1000 joins
 *   npx bun scripts/bench/upstream/index.ts --sizes=200 --runs=1 --services=0
 *   npx bun scripts/bench/upstream/index.ts --sizes= --runs=1 --services=100   only the load balancers
 *   npx bun scripts/bench/upstream/index.ts --only-ours --sizes=5000 --runs=1 --services=0   ours alone (no Go build)
 *
 * Ours runs the sandbox provider against the simulated cloud over HTTP (the fake provider is not shippable), so it
 * does more work per node than the Go side. Joins: the Nodes are created as kubelets register them (tainted), then
 * the manager is spawned; the clock runs from the spawn to no Node carrying the uninitialized taint. APF's rejections
 * and 429 answers are read from the server's own counters (./flow-control.ts). The peak resident set (VmHWM), RSS and
 * RssAnon from /proc/<pid>/status. Each size has a floor: a bare client's Node writes (./floor.ts). Then
 * `--level-nodes` joins (default 1000, 0: none) with the managers' user alone in a one-share APF priority level that
 * rejects, then one that queues (`--levels=queuing`: only that one). Both managers run as
 * the user `ccm-bench` (bound to cluster-admin), not the admin: system:masters is APF's exempt priority level, a
 * cloud-controller-manager's identity is not.
 *
 * The parts: ./options.ts (flags), ./harness.ts (server, cloud, spawning), ./startup.ts, ./joins.ts and
 * ./services.ts (one scenario kind each), ./report.ts (the table), ./memory.ts and ./sync-lag.ts (what is measured).
 */
import { parseArgs } from "node:util";
import { startHarness } from "./harness.ts";
import { benchJoins, benchPriorityLevels } from "./joins.ts";
import { type AgainstUpstreamOptions, againstUpstreamOptions } from "./options.ts";
import { createReport } from "./report.ts";
import { benchServices } from "./services.ts";
import { benchStartup } from "./startup.ts";

export { type AgainstUpstreamOptions, againstUpstreamOptions } from "./options.ts";

/** Runs every figure, alternating upstream and ours, and prints the Markdown table on stdout. */
export async function runAgainstUpstream(options: AgainstUpstreamOptions): Promise<void> {
  const h = await startHarness(options);
  const report = createReport();
  try {
    await benchStartup(h, options.runs, report);
    await benchJoins(h, options.sizes, report);
    if (options.levelNodes > 0) await benchPriorityLevels(h, options.levelNodes, options.levels, report);
    if (options.services > 0) await benchServices(h, options.services, report);
  } finally {
    await h.stop();
  }
  report.print();
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      sizes: { type: "string", default: "1000,5000" },
      runs: { type: "string", default: "3" },
      services: { type: "string", default: "100" },
      "reuse-build": { type: "boolean", default: false },
      ours: { type: "string" },
      "keep-snapshots": { type: "string" },
      "only-ours": { type: "boolean", default: false },
      "level-nodes": { type: "string", default: "1000" },
      levels: { type: "string", default: "rejecting,queuing" },
    },
  });
  await runAgainstUpstream(
    againstUpstreamOptions(values.sizes, values.runs, values["reuse-build"], values.services, {
      ours: values.ours,
      keepSnapshots: values["keep-snapshots"],
      onlyOurs: values["only-ours"],
      levelNodes: values["level-nodes"],
      levels: values.levels,
    }),
  );
}
