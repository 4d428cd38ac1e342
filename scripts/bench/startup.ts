/**
 * Start-up and idle memory: the compiled executable started N times against an empty emulator, with
 * every controller on, `--secure-port` on a free port and `--leader-elect=false`. Start-up is the time from
 * spawn to the first `200` from `https://…/healthz` (polled every 2 ms, so it includes one TLS handshake); idle
 * memory is read once the controllers have synced their caches and the process has sat idle for a while.
 */
import { startCcm } from "./ccm.ts";
import { type Benchmark, withCluster } from "./context.ts";
import { type BenchResult, below, type Figure, put } from "./report.ts";

const IDLE_SETTLE_MS = 3000;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const startupBenchmark: Benchmark = {
  id: "startup",
  title: "start-up to /healthz and idle memory (empty cluster, all controllers)",
  async run(ctx): Promise<BenchResult> {
    const startups: number[] = [];
    const rss: number[] = [];
    const hwm: number[] = [];
    const cpu: number[] = [];
    await withCluster(async (cluster) => {
      for (let i = 0; i < ctx.startupRuns; i++) {
        const ccm = startCcm(ctx.exe, cluster);
        try {
          startups.push(await ccm.healthy());
          await ccm.logged(/node sync workers/);
          await Bun.sleep(IDLE_SETTLE_MS);
          const mem = ccm.memory();
          rss.push(mem.rssMiB);
          hwm.push(mem.hwmMiB);
          cpu.push(ccm.cpuMs());
        } finally {
          await ccm.stop();
        }
      }
    });
    ctx.log(`startup: ${startups.map((s) => s.toFixed(0)).join(", ")} ms`);
    const figures: Figure[] = [];
    put(figures, "full", `start-up to /healthz, median of ${startups.length}`, "ms", median(startups), {
      target: below(150, "< 150 ms"),
    });
    put(figures, "full", "start-up to /healthz, fastest", "ms", Math.min(...startups));
    put(figures, "full", "start-up to /healthz, slowest", "ms", Math.max(...startups));
    put(figures, "full", "memory idle (VmRSS), median", "MiB", median(rss), { target: below(70, "< 70 MB") });
    put(figures, "full", "memory idle, peak so far (VmHWM), median", "MiB", median(hwm));
    put(figures, "full", `CPU time used by then (start + ${IDLE_SETTLE_MS / 1000} s idle)`, "ms", median(cpu));
    return {
      id: "startup",
      title: this.title,
      sizes: { full: "empty cluster (no size)" },
      figures,
      details: { startupMs: startups, rssMiB: rss, hwmMiB: hwm, cpuMs: cpu },
      notes: [
        "no cluster size applies; the footprint benchmark repeats the start-up with the cluster populated, at both sizes",
        "MiB are 2^20 bytes; the targets' MB are read as MiB (1 MiB = 1.049 MB)",
      ],
    };
  },
};
