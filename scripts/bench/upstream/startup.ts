/**
 * The start-up scenario: each side spawned with no Nodes, `runs` times alternating, timed from the spawn to its
 * /healthz answering 200, its RSS read 10 s later; the medians go to the table, the last run's memory breakdown to
 * the "idle" column (its figures agree with each other, not with the median).
 */
import { type Harness, log, type Resident, residentMiB, type Side, until } from "./harness.ts";
import type { MemoryBreakdown } from "./memory.ts";
import type { Report } from "./report.ts";

export async function benchStartup(h: Harness, runs: number, report: Report): Promise<void> {
  const idleMemory: Partial<Record<Side, MemoryBreakdown>> = {};
  const boot: Record<Side, { ms: number[]; rss: number[]; peak: number[]; anon: number[] }> = {
    upstream: { ms: [], rss: [], peak: [], anon: [] },
    ours: { ms: [], rss: [], peak: [], anon: [] },
  };
  await h.clearNodes();
  for (let i = 0; i < runs; i++) {
    for (const side of h.sides) {
      const r = await startup(h, side);
      log(
        `start-up ${side}: ${r.ms.toFixed(0)} ms, idle RSS ${r.resident.rss.toFixed(1)} MiB, ` +
          `peak ${r.resident.peak.toFixed(1)} MiB, RssAnon ${r.resident.anon.toFixed(1)} MiB`,
      );
      boot[side].ms.push(r.ms);
      boot[side].rss.push(r.resident.rss);
      boot[side].peak.push(r.resident.peak);
      boot[side].anon.push(r.resident.anon);
      idleMemory[side] = r.memory;
    }
  }
  report.put("start-up to /healthz", median(boot.upstream.ms), median(boot.ours.ms), "ms");
  report.put("idle RSS (10 s after /healthz)", median(boot.upstream.rss), median(boot.ours.rss), "MiB");
  report.put("idle RssAnon (10 s after /healthz)", median(boot.upstream.anon), median(boot.ours.anon), "MiB");
  report.put("peak RSS (VmHWM) by then", median(boot.upstream.peak), median(boot.ours.peak), "MiB");
  report.scenario({ label: "idle", nodes: 0, ...idleMemory });
}

/** Start-up to /healthz (ms) and the resident set 10 s later (MiB), with no Nodes. */
async function startup(h: Harness, side: Side): Promise<{ ms: number; resident: Resident; memory: MemoryBreakdown }> {
  const t0 = performance.now();
  const ccm = h.spawn(side, []);
  try {
    await until(`${side} /healthz`, () => healthy(ccm.url), 60_000, 5);
    const ms = performance.now() - t0;
    await Bun.sleep(10_000);
    const resident = residentMiB(ccm.proc.pid);
    return { ms, resident, memory: await h.breakdown(side, ccm, "idle") };
  } finally {
    await ccm.stop();
  }
}

const healthy = async (url: string) => {
  try {
    const r = await fetch(`${url}/healthz`, { tls: { rejectUnauthorized: false }, keepalive: false });
    return r.status === 200;
  } catch {
    return false;
  }
};

/** The lower median; NaN for a side not run. */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
};
