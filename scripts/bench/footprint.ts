/**
 * At size: N nodes and S LoadBalancer Services, all initialised, every load balancer and route in the
 * cloud and every ingress set (a helper run of the executable converges the cluster first, unthrottled). Then the
 * measured process starts with default flags and every controller, and the bench records:
 *
 * - start-up to /healthz with the cluster present, and the start-up wave: from spawn to the last request of the
 *   re-list and first sync of every object (then 2 s without any request), with what it asked of API and cloud;
 * - memory after that wave (VmRSS, VmHWM), and again after the steady windows;
 * - two windows one after the other: the first still holds the runtime's warm-up after the wave (JIT and GC
 *   threads), so the steady CPU figure is the second's; API and cloud calls count over both; all per minute;
 * - a periodic informer resync (a third run with `--min-resync-period` short; see resync.ts).
 */
import { Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import type { Ccm } from "./ccm.ts";
import { metricValue, startCcm, UNTHROTTLED } from "./ccm.ts";
import { type BenchCluster, listAll, waitQuiet, waitUntil } from "./cluster.ts";
import { type BenchContext, type Benchmark, seconds, withCluster } from "./context.ts";
import { createServices, hasIngress, machines, registerInitialised } from "./fixtures.ts";
import { atMost, type BenchResult, below, type Figure, put, type Scale } from "./report.ts";
import { measureResync } from "./resync.ts";

export const FOOTPRINT_SIZES: Record<Scale, { nodes: number; services: number }> = {
  tenth: { nodes: 500, services: 200 },
  full: { nodes: 5000, services: 2000 },
};
const QUIET_MS = 2000;

/** The size a scale runs at, or `--footprint-nodes` with the full size's share of Services. */
export function footprintSize(scale: Scale, nodes: number | undefined): { nodes: number; services: number } {
  if (nodes === undefined) return FOOTPRINT_SIZES[scale];
  const { full } = FOOTPRINT_SIZES;
  return { nodes, services: Math.round((nodes * full.services) / full.nodes) };
}

/** Fills the cluster and lets a helper run of the executable converge it; returns the seconds that took. */
async function populate(ctx: BenchContext, cluster: BenchCluster, size: { nodes: number; services: number }) {
  registerInitialised(cluster, machines(cluster, size.nodes), true);
  createServices(cluster, size.services);
  const started = performance.now();
  const helper = startCcm(ctx.exe, cluster, [...UNTHROTTLED, "--concurrent-service-syncs=8"]);
  try {
    await helper.healthy();
    await waitUntil(
      () =>
        cluster.cloud.state.listRoutes().length >= size.nodes &&
        listAll<Service>(cluster, Resources.services, "default").every(hasIngress),
      "the cluster converged (every route and ingress)",
      { timeoutMs: 900_000, intervalMs: 250 },
    );
    await waitQuiet(cluster, QUIET_MS, 120_000);
  } finally {
    await helper.stop();
  }
  return seconds(performance.now() - started);
}

/** The manager's periodic loops at default flags, and how often each fits in a window of `seconds`. */
function periodicIn(seconds: number): string {
  const loops = [
    ["lifecycle monitor", 5],
    ["route reconcile", 10],
    ["service resync", 30],
  ] as const;
  return loops.map(([name, every]) => `${name} (every ${every} s) ×${Math.floor(seconds / every)}`).join(", ");
}

interface Window {
  readonly seconds: number;
  readonly cpuMs: number;
  readonly api: ReturnType<BenchCluster["requests"]["snapshot"]>;
  readonly cloud: ReturnType<BenchCluster["cloudCalls"]>;
}

async function steadyWindow(cluster: BenchCluster, ccm: Ccm, windowSeconds: number): Promise<Window> {
  cluster.resetCounters();
  const cpu0 = ccm.cpuMs();
  const t0 = performance.now();
  await Bun.sleep(windowSeconds * 1000);
  const cpuMs = ccm.cpuMs() - cpu0;
  return {
    seconds: seconds(performance.now() - t0),
    cpuMs,
    api: cluster.requests.snapshot(),
    cloud: cluster.cloudCalls(),
  };
}

export const footprintBenchmark: Benchmark = {
  id: "footprint",
  title: "memory, steady state and resync with N nodes and S LoadBalancer Services",
  async run(ctx): Promise<BenchResult> {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const sizes: BenchResult["sizes"] = {};
    for (const scale of ctx.scales) {
      const size = footprintSize(scale, ctx.footprintNodes);
      sizes[scale] = `${size.nodes} nodes, ${size.services} LoadBalancer Services`;
      const d: Record<string, unknown> = {};
      details[scale] = d;
      await withCluster(async (cluster) => {
        ctx.log(`footprint/${scale}: converging ${size.nodes} nodes and ${size.services} Services`);
        d.convergeSeconds = await populate(ctx, cluster, size);
        cluster.resetCounters();
        ctx.log(`footprint/${scale}: measured run (default flags)`);
        const ccm = startCcm(ctx.exe, cluster);
        try {
          const startup = await ccm.healthy();
          const lastRequest = await waitQuiet(cluster, QUIET_MS, 600_000);
          const wave = { api: cluster.requests.snapshot(), cloud: cluster.cloudCalls() };
          const metrics = await ccm.metrics();
          const droppedEvents = metricValue(metrics, "event_recorder_dropped_events_total");
          const nodeSyncs = metricValue(metrics, "service_controller_nodesync_latency_seconds_count");
          const afterWave = ccm.memory();
          ctx.log(`footprint/${scale}: two steady windows of ${ctx.steadySeconds} s`);
          const first = await steadyWindow(cluster, ccm, ctx.steadySeconds);
          const steady = await steadyWindow(cluster, ccm, ctx.steadySeconds);
          const afterSteady = ccm.memory();
          Object.assign(d, {
            startupMs: startup,
            wave,
            droppedEvents,
            nodeSyncs,
            afterWave,
            first,
            steady,
            afterSteady,
          });
          const perMin = 60 / (first.seconds + steady.seconds);
          const share = (w: Window) => (w.cpuMs / 1000 / w.seconds) * 100;
          put(figures, scale, "start-up to /healthz, cluster present", "ms", startup);
          put(
            figures,
            scale,
            "start-up wave: re-list and first sync of everything",
            "s",
            seconds(lastRequest - ccm.startedAt),
            {
              note: "spawn → last API or cloud request before 2 s without any",
            },
          );
          put(figures, scale, "  API requests in the wave", "", wave.api.total);
          put(figures, scale, "  API writes in the wave (Events included)", "", wave.api.writes);
          put(figures, scale, "  Events the recorder dropped in the wave", "", droppedEvents);
          put(figures, scale, "  node syncs of every load balancer in the wave", "", nodeSyncs);
          put(figures, scale, "  cloud calls in the wave", "", wave.cloud.total);
          put(figures, scale, "  cloud writes in the wave", "", wave.cloud.writes);
          put(figures, scale, "memory after the wave (VmRSS)", "MiB", afterWave.rssMiB, {
            target: below(250, "< 250 MB"),
          });
          put(figures, scale, "memory peak (VmHWM) after the wave", "MiB", afterWave.hwmMiB);
          put(figures, scale, "memory after the steady windows (VmRSS)", "MiB", afterSteady.rssMiB, {
            target: below(250, "< 250 MB"),
          });
          put(figures, scale, "CPU in the first window after the wave", "%", share(first));
          put(figures, scale, "steady CPU (second window), share of one core", "%", share(steady), {
            target: below(1, "< 1 %"),
          });
          put(
            figures,
            scale,
            "steady CPU time per minute (second window)",
            "ms/min",
            (steady.cpuMs * 60) / steady.seconds,
          );
          const calls = (f: (w: Window) => number) => (f(first) + f(steady)) * perMin;
          put(
            figures,
            scale,
            "steady API requests per minute",
            "/min",
            calls((w) => w.api.total),
          );
          put(
            figures,
            scale,
            "steady API writes per minute",
            "/min",
            calls((w) => w.api.writes),
            {
              target: atMost(0, "0"),
            },
          );
          put(
            figures,
            scale,
            "steady cloud calls per minute",
            "/min",
            calls((w) => w.cloud.total),
          );
          put(
            figures,
            scale,
            "steady cloud writes per minute",
            "/min",
            calls((w) => w.cloud.writes),
            {
              target: atMost(0, "0"),
            },
          );
        } finally {
          await ccm.stop();
        }
        ctx.log(`footprint/${scale}: periodic informer resync`);
        const resync = await measureResync(ctx, cluster, size.nodes);
        d.resync = resync;
        put(figures, scale, "periodic resync: all nodes re-queued and synced", "ms", resync.wallMs, {
          note: `wall time between /metrics polls every ${resync.pollMs} ms (so ± that); --min-resync-period=${resync.minResyncSeconds}s`,
        });
        put(figures, scale, "  CPU time of that resync", "ms", resync.cpuMs);
        put(figures, scale, "  API writes during that resync", "", resync.apiWrites);
        put(figures, scale, "  cloud calls during that resync", "", resync.cloudCalls);
      });
    }
    return {
      id: "footprint",
      title: this.title,
      sizes,
      figures,
      details,
      notes: [
        `steady windows: 2 × ${ctx.steadySeconds} s, scaled to a minute; periodic work in each: ${periodicIn(ctx.steadySeconds)}; the 5 min address refresh is not in it (it ran in the start-up wave)`,
        "API requests counted at the emulator's request entry; cloud calls from /v1/calls; CPU from /proc/<pid>/stat (10 ms ticks)",
      ],
    };
  },
};
