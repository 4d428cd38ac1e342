/**
 * The periodic informer resync at size: the executable started against a converged cluster with
 * `--min-resync-period` short (upstream's default is 12h, drawn in [P, 2P) like upstream), and `/metrics`
 * polled until the `Nodes` queue has taken every node again and drained. The resync is the moment every cached
 * object is re-delivered to the handlers; a correct controller then writes nothing and calls no cloud.
 */
import { metricValue, startCcm, UNTHROTTLED } from "./ccm.ts";
import { type BenchCluster, waitQuiet } from "./cluster.ts";
import type { BenchContext } from "./context.ts";

const MIN_RESYNC_SECONDS = 20;
const POLL_MS = 50;

export interface ResyncRun {
  readonly minResyncSeconds: number;
  readonly pollMs: number;
  /** From the last poll before the resync to the first that saw it complete (an upper bound). */
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly apiRequests: number;
  readonly apiWrites: number;
  readonly cloudCalls: number;
  readonly nodesQueued: number;
}

interface Sample {
  readonly at: number;
  readonly adds: number;
  readonly depth: number;
  /** Seconds of work in progress (0 when no worker is busy). */
  readonly busy: number;
  readonly cpuMs: number;
  readonly api: { total: number; writes: number };
  readonly cloud: number;
}

export async function measureResync(ctx: BenchContext, cluster: BenchCluster, nodes: number): Promise<ResyncRun> {
  const ccm = startCcm(ctx.exe, cluster, [
    ...UNTHROTTLED,
    "--concurrent-service-syncs=8",
    `--min-resync-period=${MIN_RESYNC_SECONDS}s`,
  ]);
  try {
    await ccm.healthy();
    await waitQuiet(cluster, 2000, 300_000);
    cluster.resetCounters();
    const sample = async (): Promise<Sample> => {
      const text = await ccm.metrics();
      const api = cluster.requests.snapshot();
      return {
        at: performance.now(),
        adds: metricValue(text, "workqueue_adds_total", { name: "Nodes" }),
        depth: metricValue(text, "workqueue_depth", { name: "Nodes" }),
        busy: metricValue(text, "workqueue_unfinished_work_seconds", { name: "Nodes" }),
        cpuMs: ccm.cpuMs(),
        api: { total: api.total, writes: api.writes },
        cloud: cluster.cloudCalls().total,
      };
    };
    const base = await sample();
    const deadline = performance.now() + 3 * MIN_RESYNC_SECONDS * 1000;
    let before = base;
    let last = base;
    // Wait for the first increase, remembering the poll before it.
    while (last.adds === base.adds) {
      if (performance.now() > deadline) throw new Error(`no resync within ${3 * MIN_RESYNC_SECONDS} s`);
      await Bun.sleep(POLL_MS);
      before = last;
      last = await sample();
    }
    while (last.adds < base.adds + nodes || last.depth > 0 || last.busy > 0) {
      if (performance.now() > deadline + 60_000) throw new Error("the resync did not drain the Nodes queue");
      await Bun.sleep(POLL_MS);
      last = await sample();
    }
    return {
      minResyncSeconds: MIN_RESYNC_SECONDS,
      pollMs: POLL_MS,
      wallMs: last.at - before.at,
      cpuMs: last.cpuMs - before.cpuMs,
      apiRequests: last.api.total - before.api.total,
      apiWrites: last.api.writes - before.api.writes,
      cloudCalls: last.cloud - before.cloud,
      nodesQueued: last.adds - base.adds,
    };
  } catch (err) {
    throw new Error(`resync: ${(err as Error).message}; the executable said:\n${ccm.output().slice(-200000)}`, {
      cause: err,
    });
  } finally {
    await ccm.stop();
  }
}
