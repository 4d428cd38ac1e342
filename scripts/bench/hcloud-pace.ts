/**
 * The hcloud provider's production pace, timed: the end-to-end tests run the provider at 20 requests a second
 * against the emulator (`HCLOUD_RATE_LIMIT_QPS`), so this benchmark is what shows that the default (0.9 a second,
 * burst 10) holds Hetzner's budget when a burst of work arrives at once. A converged cluster with no Services, the
 * compiled manager at hccm's flags and the default pace, then `services` load-balanced Services created together:
 * how long until each has an address, how many calls that took, and the most calls the emulator saw in any 60 s
 * (the bucket allows 60 × 0.9 + 10 = 64).
 */
import { Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { hcloudRateLimit } from "../../providers/hcloud/api/client.ts";
import { withCloudManager } from "./ccm.ts";
import { listAll, waitUntil } from "./cluster.ts";
import { type BenchContext, withCluster } from "./context.ts";
import { createServices, hasIngress } from "./fixtures.ts";
import { converge, HCCM_FLAGS, quiet, startProject } from "./hcloud-project.ts";

const WINDOW_MS = 60_000;

export interface PacedBurst {
  readonly services: number;
  readonly seconds: number;
  readonly calls: number;
  /** Calls a second over the whole burst. */
  readonly rate: number;
  /** The most calls in any 60 s of the burst, sampled every second. */
  readonly peakPerMinute: number;
}

/** The bucket's most calls in `WINDOW_MS`: a full burst plus the sustained rate. */
export const allowedPerMinute = hcloudRateLimit.burst + (hcloudRateLimit.qps * WINDOW_MS) / 1000;

export async function pacedBurst(bench: BenchContext, nodes: number, services: number): Promise<PacedBurst> {
  const p = startProject(nodes);
  try {
    return await withCluster(async (cluster) => {
      await converge(p, cluster.api.store, nodes, 0);
      return await withCloudManager(bench.exe, cluster, HCCM_FLAGS, p.env, async (output) => {
        await quiet(p, 10_000, 600_000);
        p.emulator.calls.reset();
        const started = performance.now();
        const samples: { at: number; calls: number }[] = [{ at: started, calls: 0 }];
        const sampler = setInterval(() => samples.push({ at: performance.now(), calls: p.calls().total }), 1000);
        try {
          createServices(cluster, services);
          const all = () => listAll<Service>(cluster, Resources.services, "default").filter(hasIngress).length;
          await waitUntil(() => all() === services, `${services} Services with an address`, {
            timeoutMs: 30 * 60_000,
            intervalMs: 250,
          }).catch(output.explain);
        } finally {
          clearInterval(sampler);
        }
        const seconds = (performance.now() - started) / 1000;
        const calls = p.calls().total;
        samples.push({ at: performance.now(), calls });
        bench.log(`hcloud pace: ${services} Services with an address in ${seconds.toFixed(1)} s, ${calls} calls`);
        return { services, seconds, calls, rate: calls / seconds, peakPerMinute: peakInWindow(samples) };
      });
    });
  } finally {
    await p.emulator.stop();
  }
}

/** The largest increase of `calls` between two samples at most `WINDOW_MS` apart. */
export function peakInWindow(samples: readonly { at: number; calls: number }[]): number {
  let peak = 0;
  let from = 0;
  for (const s of samples) {
    while (s.at - samples[from]!.at > WINDOW_MS) from++;
    peak = Math.max(peak, s.calls - samples[from]!.calls);
  }
  return peak;
}
