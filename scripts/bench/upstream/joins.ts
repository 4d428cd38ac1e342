/**
 * The join scenarios: for each size and flag set, n kubelet-registered Nodes (tainted uninitialized) are waiting when
 * a manager is spawned; the clock runs from the spawn to no Node carrying the taint. Then 429s counted, RSS and the
 * memory breakdown 10 s after, and how late each Node's `Synced` event came (./sync-lag.ts).
 */
import { Resources } from "../../../kube/client-types.ts";
import type { Node } from "../../../kube/objects.ts";
import { Taints } from "../../../kube/well-known.ts";
import { FLAG_SETS, type Harness, log, rssMiB, type Side, until } from "./harness.ts";
import type { MemoryBreakdown } from "./memory.ts";
import type { Report } from "./report.ts";
import { type SyncLag, watchSyncLag } from "./sync-lag.ts";

/** Upstream at default flags joins at 20 requests/s: 5000 Nodes would take ~750 s, so sizes above this skip it. */
const UPSTREAM_DEFAULT_FLAGS_MAX_NODES = 1000;

interface Joined {
  readonly s: number;
  readonly throttled: number;
  readonly rss: number;
  readonly memory: MemoryBreakdown;
  readonly lag: SyncLag;
  /** Ours: `event_recorder_dropped_events_total` by reason, read once the lag watch finished. */
  readonly dropped?: Readonly<Record<string, number>>;
}

/** Six rows and one breakdown column per size and flag set, sizes in the order given. */
export async function benchJoins(h: Harness, sizes: readonly number[], report: Report): Promise<void> {
  for (const n of sizes) {
    for (const [label, extra] of FLAG_SETS) {
      const got: Partial<Record<Side, Joined>> = {};
      for (const side of h.sides) {
        if (side === "upstream" && extra.length === 0 && n > UPSTREAM_DEFAULT_FLAGS_MAX_NODES) {
          // Three requests a Node (the update, the status patch, the Synced event) at 20 a second: 150 s for 1000.
          log(`${n} joins, ${label}, upstream: skipped (20 requests/s: about ${Math.round((3 * n) / 20)} s)`);
          continue;
        }
        const r = await join(h, side, n, [...extra], label);
        got[side] = r;
        log(
          `${n} joins, ${label}, ${side}: ${r.s.toFixed(2)} s, ${r.throttled} × 429, RSS ${r.rss.toFixed(1)} MiB, ` +
            `Synced lag median ${r.lag.medianS.toFixed(2)} s max ${r.lag.maxS.toFixed(2)} s (${r.lag.synced}/${n})`,
        );
      }
      report.scenario({
        label: `${n} nodes, ${label}`,
        nodes: n,
        upstream: got.upstream?.memory,
        ours: got.ours?.memory,
      });
      report.put(`${n} nodes joining, ${label}`, got.upstream?.s ?? Number.NaN, got.ours?.s ?? Number.NaN, "s");
      report.put(
        `429 answers during those ${n} joins, ${label}`,
        got.upstream?.throttled ?? Number.NaN,
        got.ours?.throttled ?? Number.NaN,
        "",
      );
      report.put(`RSS with ${n} nodes, ${label}`, got.upstream?.rss ?? Number.NaN, got.ours?.rss ?? Number.NaN, "MiB");
      report.put(
        `Synced event after initialisation, median, ${n} nodes, ${label}`,
        got.upstream?.lag.medianS ?? Number.NaN,
        got.ours?.lag.medianS ?? Number.NaN,
        "s",
      );
      report.put(
        `Synced event after initialisation, max, ${n} nodes, ${label}`,
        got.upstream?.lag.maxS ?? Number.NaN,
        got.ours?.lag.maxS ?? Number.NaN,
        "s",
      );
      report.put(
        `Synced events seen within 3 min, ${n} nodes, ${label}`,
        got.upstream?.lag.synced ?? Number.NaN,
        got.ours?.lag.synced ?? Number.NaN,
        "",
      );
    }
  }
}

/** Seconds from spawn to every Node initialised, 429s counted, RSS and the breakdown 10 s after, Synced lag. */
async function join(h: Harness, side: Side, n: number, extra: string[], label: string): Promise<Joined> {
  await h.clearNodes();
  await h.registerNodes(n);
  const lagWatch = await watchSyncLag(h.client);
  const before = await h.throttledCount();
  const t0 = performance.now();
  const ccm = h.spawn(side, extra);
  try {
    await until(
      `${n} Nodes initialised by ${side}`,
      async () => {
        if (ccm.proc.exitCode !== null) throw new Error(`${side} exited:\n${ccm.output().slice(-2000)}`);
        const nodes = (await h.client.list<Node>(Resources.nodes)).items;
        return nodes.length === n && !nodes.some(tainted);
      },
      600_000,
      100,
    );
    const s = (performance.now() - t0) / 1000;
    const pacing = /Kubernetes client pacing: (.*)/.exec(ccm.output())?.[1];
    if (pacing) log(`${side}: ${pacing}`);
    const throttled = (await h.throttledCount()) - before;
    await Bun.sleep(10_000);
    const rss = rssMiB(ccm.proc.pid);
    const memory = await h.breakdown(side, ccm, `${n} nodes, ${label}`);
    // Events wait behind the client's pacing; 3 minutes is far more than either needs at these sizes.
    const lag = await lagWatch.finish(n, 180_000);
    if (lag.synced < n) log(`${side}: only ${lag.synced} of ${n} Synced events seen`);
    if (side === "upstream") return { s, throttled, rss, memory, lag };
    const dropped = await h.droppedEvents(ccm.url);
    log(`ours: events dropped by the recorder: ${JSON.stringify(dropped)}`);
    return { s, throttled, rss, memory, lag, dropped };
  } finally {
    await ccm.stop();
  }
}

const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
