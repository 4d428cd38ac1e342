/**
 * The join scenarios: for each size and flag set, n kubelet-registered Nodes (tainted uninitialized) are waiting when
 * a manager is spawned; the clock runs from the spawn to no Node carrying the taint. Then APF's rejections and the
 * 429s counted (./flow-control.ts), the peak resident set (VmHWM: what a container memory limit meets), RSS and
 * RssAnon and the memory breakdown 10 s after, and how late each Node's `Synced` event came (./sync-lag.ts). Each size
 * also gets the API server's floor (./floor.ts) at ours' worker count and at upstream's one worker, and each join
 * time is read as a multiple of the floor at its own concurrency.
 */
import { Resources } from "../../../kube/client-types.ts";
import type { Node } from "../../../kube/objects.ts";
import { Taints } from "../../../kube/well-known.ts";
import { floorSeconds } from "./floor.ts";
import { countsSince, type FlowControlCounts, type LevelKind } from "./flow-control.ts";
import { FLAG_SETS, type Harness, log, type Resident, residentMiB, type Side, until } from "./harness.ts";
import type { MemoryBreakdown } from "./memory.ts";
import type { Report } from "./report.ts";
import { type SyncLag, watchSyncLag } from "./sync-lag.ts";

/** Upstream at default flags joins at 20 requests/s: 5000 Nodes would take ~750 s, so sizes above this skip it. */
const UPSTREAM_DEFAULT_FLAGS_MAX_NODES = 1000;
/** Upstream's `--concurrent-node-syncs` default; ours' count is read from its log. */
const UPSTREAM_NODE_WORKERS = 1;

export interface Joined {
  readonly s: number;
  readonly apf: FlowControlCounts;
  /** VmHWM when every Node was initialised: the peak of the storm. */
  readonly peak: number;
  /** 10 s after. */
  readonly resident: Resident;
  readonly memory: MemoryBreakdown;
  readonly lag: SyncLag;
  /** Ours' node sync workers, from its log line. */
  readonly workers?: number | undefined;
  /** Ours: `event_recorder_dropped_events_total` by reason, read once the lag watch finished. */
  readonly dropped?: Readonly<Record<string, number>>;
}

type Got = Partial<Record<Side, Joined>>;
const nan = Number.NaN;

/** The rows of one scenario's joins. */
function putJoinRows(report: Report, got: Got, what: string, floor?: Partial<Record<Side, number>>): void {
  report.put(`${what}: joining`, got.upstream?.s ?? nan, got.ours?.s ?? nan, "s");
  if (floor) {
    const times = (side: Side) => (got[side]?.s ?? nan) / (floor[side] ?? nan);
    report.put(`${what}: joining ÷ the floor at the same concurrency`, times("upstream"), times("ours"), "×");
  }
  report.put(
    `${what}: APF rejections (apiserver_flowcontrol_rejected_requests_total)`,
    got.upstream?.apf.rejected ?? nan,
    got.ours?.apf.rejected ?? nan,
    "",
  );
  report.put(
    `${what}: 429 answers (apiserver_request_terminations_total{code="429"})`,
    got.upstream?.apf.terminated429 ?? nan,
    got.ours?.apf.terminated429 ?? nan,
    "",
  );
  report.put(
    `${what}: 429 answers (apiserver_request_total{code="429"})`,
    got.upstream?.apf.requests429 ?? nan,
    got.ours?.apf.requests429 ?? nan,
    "",
  );
  report.put(`${what}: peak RSS (VmHWM)`, got.upstream?.peak ?? nan, got.ours?.peak ?? nan, "MiB");
  report.put(`${what}: RSS 10 s after`, got.upstream?.resident.rss ?? nan, got.ours?.resident.rss ?? nan, "MiB");
  report.put(`${what}: RssAnon 10 s after`, got.upstream?.resident.anon ?? nan, got.ours?.resident.anon ?? nan, "MiB");
}

function putLagRows(report: Report, got: Got, what: string): void {
  const lag = (side: Side, pick: (l: SyncLag) => number) => {
    const l = got[side]?.lag;
    return l ? pick(l) : nan;
  };
  report.put(
    `${what}: Synced event after initialisation, median`,
    lag("upstream", (l) => l.medianS),
    lag("ours", (l) => l.medianS),
    "s",
  );
  report.put(
    `${what}: Synced event after initialisation, max`,
    lag("upstream", (l) => l.maxS),
    lag("ours", (l) => l.maxS),
    "s",
  );
  report.put(
    `${what}: Synced events seen within 3 min`,
    lag("upstream", (l) => l.synced),
    lag("ours", (l) => l.synced),
    "",
  );
}

const logJoined = (what: string, side: Side, r: Joined) =>
  log(
    `${what}, ${side}: ${r.s.toFixed(2)} s, ${r.apf.rejected} APF rejections, ${r.apf.terminated429} × 429, ` +
      `peak RSS ${r.peak.toFixed(1)} MiB, RSS ${r.resident.rss.toFixed(1)} MiB, RssAnon ${r.resident.anon.toFixed(1)} MiB, ` +
      `Synced lag median ${r.lag.medianS.toFixed(2)} s max ${r.lag.maxS.toFixed(2)} s (${r.lag.synced})`,
  );

/** Rows and one breakdown column per size and flag set, sizes in the order given, then the floor of each size. */
export async function benchJoins(h: Harness, sizes: readonly number[], report: Report): Promise<void> {
  for (const n of sizes) {
    let oursWorkers: number | undefined;
    const runs: Array<[string, Got]> = [];
    for (const [label, extra] of FLAG_SETS) {
      const got: Got = {};
      for (const side of h.sides) {
        if (side === "upstream" && extra.length === 0 && n > UPSTREAM_DEFAULT_FLAGS_MAX_NODES) {
          // Three requests a Node (the update, the status patch, the Synced event) at 20 a second: 150 s for 1000.
          log(`${n} joins, ${label}, upstream: skipped (20 requests/s: about ${Math.round((3 * n) / 20)} s)`);
          continue;
        }
        const r = await join(h, side, n, [...extra], label);
        got[side] = r;
        oursWorkers ??= r.workers;
        logJoined(`${n} joins, ${label}`, side, r);
      }
      report.scenario({
        label: `${n} nodes, ${label}`,
        nodes: n,
        upstream: got.upstream?.memory,
        ours: got.ours?.memory,
      });
      runs.push([label, got]);
    }
    const floor = await floors(h, n, oursWorkers ?? 1);
    report.put(`${n} joins: the floor, a bare client's Node writes, ${floor.oursAt} at once`, nan, floor.ours, "s");
    report.put(
      `${n} joins: the floor, a bare client's Node writes, one at a time`,
      floor.upstream,
      floor.upstream,
      "s",
    );
    for (const [label, got] of runs) {
      putJoinRows(report, got, `${n} joins, ${label}`, floor);
      putLagRows(report, got, `${n} joins, ${label}`);
    }
  }
}

/**
 * The "flow control says no" rows: `n` joins with the managers' user alone in a one-share priority level that
 * rejects, then in one that queues, at each flag set; the user is put back in global-default after.
 */
export async function benchPriorityLevels(
  h: Harness,
  n: number,
  levels: readonly LevelKind[],
  report: Report,
): Promise<void> {
  try {
    for (const kind of levels) {
      await h.priorityLevel(kind);
      for (const [label, extra] of FLAG_SETS) {
        const what = `${n} joins in a one-share ${kind} APF level, ${label}`;
        const got: Got = {};
        for (const side of h.sides) {
          if (side === "upstream" && extra.length === 0 && n > UPSTREAM_DEFAULT_FLAGS_MAX_NODES) continue;
          got[side] = await join(h, side, n, [...extra], `${kind} level, ${label}`);
          logJoined(what, side, got[side]);
        }
        putJoinRows(report, got, what);
      }
    }
  } finally {
    await h.priorityLevel(undefined);
  }
}

/** The floor of `n` joins at ours' worker count and at upstream's one worker. */
async function floors(h: Harness, n: number, oursAt: number) {
  const at = async (concurrency: number) => {
    await h.clearNodes();
    const names = await h.registerNodes(n);
    const s = await floorSeconds(h.benchClient, names, concurrency);
    log(`${n} joins: the floor at ${concurrency} at once: ${s.toFixed(2)} s`);
    return s;
  };
  // Both always: the one-at-a-time floor is what any single-worker manager (upstream's default) can reach.
  return { ours: await at(oursAt), upstream: await at(UPSTREAM_NODE_WORKERS), oursAt };
}

/** Seconds from spawn to every Node initialised, APF's counters, the peak, RSS and the breakdown 10 s after, lag. */
async function join(h: Harness, side: Side, n: number, extra: string[], label: string): Promise<Joined> {
  await h.clearNodes();
  await h.registerNodes(n);
  const lagWatch = await watchSyncLag(h.client);
  const before = await h.flowControl();
  const t0 = performance.now();
  const ccm = h.spawn(side, extra);
  try {
    // Read off the lag watch as the Nodes change, not by listing them: a list of 1000 kubelet-shaped Nodes is 12 MB
    // for the server to encode, and listing every 100 ms loaded the server more than the managers' writes did.
    await until(
      `${n} Nodes initialised by ${side}`,
      async () => {
        if (ccm.proc.exitCode !== null) throw new Error(`${side} exited:\n${ccm.output().slice(-2000)}`);
        return lagWatch.initialised().count >= n;
      },
      900_000,
      20,
    );
    const s = ((lagWatch.initialised().lastAt ?? performance.now()) - t0) / 1000;
    const nodes = (await h.client.list<Node>(Resources.nodes)).items;
    if (nodes.length !== n || nodes.some(tainted))
      throw new Error(`the watch saw ${n} Nodes initialised, a list did not`);
    const peak = residentMiB(ccm.proc.pid).peak;
    const pacing = /Kubernetes client pacing: (.*)/.exec(ccm.output())?.[1];
    if (pacing) log(`${side}: ${pacing}`);
    const workers = Number(/cloud-node controller: (\d+) node sync workers/.exec(ccm.output())?.[1]) || undefined;
    const apf = countsSince(before, await h.flowControl());
    await Bun.sleep(10_000);
    const resident = residentMiB(ccm.proc.pid);
    const memory = await h.breakdown(side, ccm, `${n} nodes, ${label}`);
    // Events wait behind the client's pacing; 3 minutes is far more than either needs at these sizes.
    const lag = await lagWatch.finish(n, 180_000);
    if (lag.synced < n) log(`${side}: only ${lag.synced} of ${n} Synced events seen`);
    if (side === "upstream") return { s, apf, peak, resident, memory, lag };
    const dropped = await h.droppedEvents(ccm.url);
    log(`ours: events dropped by the recorder: ${JSON.stringify(dropped)}`);
    return { s, apf, peak, resident, memory, lag, workers, dropped };
  } finally {
    await ccm.stop();
  }
}

const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
