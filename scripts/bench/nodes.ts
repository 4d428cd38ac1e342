/**
 * A burst of nodes joining at once. The cloud has a machine per node; the bench registers every Node
 * tainted (as kubelets with `--cloud-provider=external` do) in one go and times until none is tainted, then waits
 * for the API and cloud to go quiet and divides what was asked of them by the number of nodes.
 *
 * Runs: default flags; then with the client's API rate limit lifted (`--kube-api-qps=1000`), no added cloud
 * latency, and 50 ms of cloud latency at the default `--concurrent-node-syncs`, at `=1` and at `=2` (those two on
 * at most 200 nodes: one worker needs about 50 s for 1000).
 */
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { startCcm, UNTHROTTLED } from "./ccm.ts";
import { listAll, waitQuiet, waitUntil } from "./cluster.ts";
import { type BenchContext, type Benchmark, seconds, withCluster } from "./context.ts";
import { isInitialised, machines, registerTainted } from "./fixtures.ts";
import { atLeast, atMost, type BenchResult, below, type Figure, put, type Scale } from "./report.ts";

const SIZES: Record<Scale, number> = { tenth: 100, full: 1000 };
const ONE_WORKER_MAX_NODES = 200;
const LATENCY_MS = 50;

export interface JoinRun {
  readonly nodes: number;
  readonly latencyMs: number;
  readonly flags: string[];
  /** From the controller's own log line. */
  readonly workers: number | undefined;
  readonly seconds: number;
  readonly apiWrites: number;
  readonly apiObjectWrites: number;
  readonly apiRequests: number;
  readonly cloudCalls: number;
  readonly requestsByKey: Record<string, number>;
  readonly cloudByRoute: Record<string, number>;
}

export async function joinBurst(
  ctx: BenchContext,
  o: { nodes: number; latencyMs: number; flags?: string[] },
): Promise<JoinRun> {
  const flags = ["--controllers=cloud-node,cloud-node-lifecycle", ...(o.flags ?? [])];
  return withCluster(async (cluster) => {
    const ms = machines(cluster, o.nodes);
    const ccm = startCcm(ctx.exe, cluster, flags);
    try {
      await ccm.healthy();
      const line = await ccm.logged(/cloud-node controller: \d+ node sync workers/);
      const workers = Number(/(\d+) node sync workers/.exec(line)?.[1]);
      await waitQuiet(cluster, 300, 5000);
      cluster.cloud.faults.set({ latencyMs: o.latencyMs });
      cluster.resetCounters();

      const started = performance.now();
      registerTainted(cluster, ms);
      await waitUntil(
        () => listAll<Node>(cluster, Resources.nodes).every(isInitialised),
        `${o.nodes} nodes initialised (${flags.join(" ")})`,
        { timeoutMs: 600_000, intervalMs: 25 },
      );
      const elapsed = performance.now() - started;
      // Trailing writes (the address patch and event after the last taint removal) belong to the join.
      await waitQuiet(cluster, 1000, 30_000);
      const req = cluster.requests.snapshot();
      const cloud = cluster.cloudCalls();
      return {
        nodes: o.nodes,
        latencyMs: o.latencyMs,
        flags,
        workers: Number.isNaN(workers) ? undefined : workers,
        seconds: seconds(elapsed),
        apiWrites: req.writes,
        apiObjectWrites: req.objectWrites,
        apiRequests: req.total,
        cloudCalls: cloud.total,
        requestsByKey: { ...req.byKey },
        cloudByRoute: cloud.byRoute,
      };
    } finally {
      await ccm.stop();
    }
  });
}

export const nodesBenchmark: Benchmark = {
  id: "nodes",
  title: "nodes joining at once (cloud-node, cloud-node-lifecycle)",
  async run(ctx): Promise<BenchResult> {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const sizes: BenchResult["sizes"] = {};
    for (const scale of ctx.scales) {
      const n = SIZES[scale];
      const few = Math.min(n, ONE_WORKER_MAX_NODES);
      sizes[scale] = `${n} nodes (${few} for the --concurrent-node-syncs=1 and =2 runs)`;
      const step = async (label: string, o: { nodes: number; latencyMs: number; flags?: string[] }) => {
        ctx.log(`nodes/${scale}: ${o.nodes} nodes, ${label}`);
        return joinBurst(ctx, o);
      };
      const shipped = await step("default flags", { nodes: n, latencyMs: 0 });
      const fast = await step("--kube-api-qps=1000", { nodes: n, latencyMs: 0, flags: UNTHROTTLED });
      const lat = { latencyMs: LATENCY_MS, flags: UNTHROTTLED };
      const slowDefault = await step(`${LATENCY_MS} ms, default workers`, { nodes: n, ...lat });
      const one = ["--concurrent-node-syncs=1", ...UNTHROTTLED];
      const slowOne = await step(`${LATENCY_MS} ms, =1`, { nodes: few, latencyMs: LATENCY_MS, flags: one });
      const two = ["--concurrent-node-syncs=2", ...UNTHROTTLED];
      const slowTwo = await step(`${LATENCY_MS} ms, =2`, { nodes: few, latencyMs: LATENCY_MS, flags: two });
      details[scale] = { shipped, fast, slowDefault, slowOne, slowTwo };

      const under5 = below(5, "< 5 s");
      put(figures, scale, "all initialised, default flags", "s", shipped.seconds, { target: under5 });
      put(figures, scale, "all initialised, --kube-api-qps=1000", "s", fast.seconds, { target: under5 });
      put(figures, scale, "API writes per node (all)", "/node", fast.apiWrites / n, {
        target: atMost(3),
        note: "every POST/PUT/PATCH/DELETE sent during the join and until 1 s of quiet after it, Events included",
      });
      put(figures, scale, "API writes per node (Node objects only)", "/node", fast.apiObjectWrites / n);
      put(figures, scale, "API requests per node (all verbs)", "/node", fast.apiRequests / n);
      put(figures, scale, "cloud calls per node", "/node", fast.cloudCalls / n);
      put(figures, scale, `all initialised, ${LATENCY_MS} ms cloud latency, default workers`, "s", slowDefault.seconds);
      put(figures, scale, "  same at --concurrent-node-syncs=1 (node count: see sizes)", "s", slowOne.seconds);
      put(figures, scale, "  same at --concurrent-node-syncs=2 (node count: see sizes)", "s", slowTwo.seconds);
      const workers = (r: JoinRun) => r.workers ?? Number.NaN;
      put(figures, scale, "  node sync workers at the default (its log)", "", workers(slowDefault));
      put(figures, scale, "  node sync workers at =1 (its log)", "", workers(slowOne));
      put(figures, scale, "  node sync workers at =2 (its log)", "", workers(slowTwo));
      const perNode = (r: JoinRun) => r.seconds / r.nodes;
      put(figures, scale, "speed-up per node of the default over =1", "×", perNode(slowOne) / perNode(slowDefault), {
        target: atLeast(10, "≥ 10×"),
      });
      put(figures, scale, "speed-up per node of the default over =2", "×", perNode(slowTwo) / perNode(slowDefault));
    }
    return {
      id: "nodes",
      title: this.title,
      sizes,
      figures,
      details,
      notes: [
        "default flags include the client limit --kube-api-qps=20 --kube-api-burst=30 (upstream's); the other runs lift it",
        "speed-ups compare seconds per node; the =1 and =2 runs join fewer nodes than the default run at the full size",
        "API requests are counted at the emulator's request entry; cloud calls from the simulated cloud's counters",
      ],
    };
  },
};
