/**
 * What the hcloud provider costs of Hetzner's budget of 3600 API requests an hour per project, counted at
 * the hcloud emulator.
 *
 * - **Steady state**: a converged cluster (nodes initialised, one route per node in `HCLOUD_NETWORK`, a load
 *   balancer per Service) under the compiled all-in-one with `--cloud-provider=hcloud` and hccm's flags. The
 *   converged state is made in-process with the provider's own code (without the client-side rate limit, which
 *   would make building it take long), then the manager starts on it, its start-up syncs settle, and the calls of
 *   a window are scaled to an hour. The window is at least 310 s so that it holds one of the node controller's
 *   5-minute refreshes of every Node.
 * - **Full refresh**: the node controller's refresh of every Node (`instanceMetadataBulk`) on the provider the
 *   registered factory builds, against the one-by-one path with hccm's server cache off (one call per Node) and on
 *   (`HCLOUD_SERVER_CACHE_MODE=all`, its default).
 */
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { createHcloudTransport } from "../../providers/hcloud/api/client.ts";
import { readHcloudConfig } from "../../providers/hcloud/config.ts";
import { hcloud, hcloudProvider } from "../../providers/hcloud/provider.ts";
import { withCloudManager } from "./ccm.ts";
import { listAll } from "./cluster.ts";
import { type BenchContext, type Benchmark, withCluster } from "./context.ts";
import { allowedPerMinute, pacedBurst } from "./hcloud-pace.ts";
import { converge, ctx, HCCM_FLAGS, kubelet, quiet, startProject } from "./hcloud-project.ts";
import { atMost, type BenchResult, type Figure, put, type Scale } from "./report.ts";

const SIZES: Record<Scale, { nodes: number; services: number; refresh: number; burst: number }> = {
  tenth: { nodes: 10, services: 5, refresh: 100, burst: 4 },
  full: { nodes: 100, services: 50, refresh: 1000, burst: 20 },
};
/** The node controller refreshes every Node every 5 minutes (`--node-status-update-frequency`). */
const MIN_WINDOW_S = 310;
async function steadyState(bench: BenchContext, scale: Scale) {
  const { nodes, services } = SIZES[scale];
  const p = startProject(nodes);
  try {
    return await withCluster(async (cluster) => {
      await converge(p, cluster.api.store, nodes, services);
      const setupCalls = p.calls().total;
      p.emulator.calls.reset();
      return await withCloudManager(bench.exe, cluster, HCCM_FLAGS, p.env, async (output) => {
        // Start-up: every Service synced once, routes listed; then quiet but for the periodic work.
        const started = performance.now();
        await quiet(p, 20_000, 600_000).catch(output.explain);
        const startupCalls = p.calls().total;
        bench.log(
          `hcloud ${scale}: start-up cost ${startupCalls} calls in ${Math.round((performance.now() - started) / 1000)} s`,
        );
        p.emulator.calls.reset();
        const windowS = Math.max(bench.steadySeconds, MIN_WINDOW_S);
        bench.log(`hcloud ${scale}: counting calls for ${windowS} s`);
        await Bun.sleep(windowS * 1000);
        const counted = p.calls();
        const nodeCount = listAll<Node>(cluster, Resources.nodes).length;
        return { windowS, counted, setupCalls, startupCalls, nodes: nodeCount };
      });
    });
  } finally {
    await p.emulator.stop();
  }
}

async function fullRefresh(scale: Scale) {
  const count = SIZES[scale].refresh;
  const p = startProject(count);
  try {
    const nodes = Array.from({ length: count }, (_, i) => kubelet(i + 1));
    const provider = await hcloud.build({ env: p.env, config: undefined, configSource: undefined });
    const refresh = async () => {
      p.emulator.calls.reset();
      const answers = await provider.instancesV2!.instanceMetadataBulk!(ctx, nodes);
      if ([...answers.values()].filter((a) => a).length !== count) throw new Error("the bulk lookup missed nodes");
      return p.calls().total;
    };
    // The first refresh of a process also resolves HCLOUD_NETWORK to its ID, once for the process's life.
    const first = await refresh();
    const bulk = await refresh();
    // One by one, as a provider without a bulk form or a cache is asked: the rate limit paces it, so it is built
    // without (the count is the same).
    const oneByOne = async (mode: string) => {
      const { config } = await readHcloudConfig({
        env: { ...p.env, HCLOUD_SERVER_CACHE_MODE: mode },
        config: undefined,
        configSource: undefined,
        readFile: (path) => Bun.file(path).text(),
      });
      const provider = hcloudProvider({
        config,
        transport: createHcloudTransport({
          token: config.token,
          endpoint: config.endpoint,
          rateLimit: { qps: 0, burst: 1 },
        }),
      });
      p.emulator.calls.reset();
      for (const node of nodes) await provider.instancesV2!.instanceMetadata(ctx, node);
      return p.calls().total;
    };
    return { count, first, bulk, perNode: await oneByOne("off"), perNodeCached: await oneByOne("all") };
  } finally {
    await p.emulator.stop();
  }
}

export const hcloudApiCallsBenchmark: Benchmark = {
  id: "hcloud",
  title: "hcloud: Cloud API calls at steady state and for a full refresh, within 3600 an hour",
  async run(bench): Promise<BenchResult> {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    for (const scale of bench.scales) {
      const refresh = await fullRefresh(scale);
      bench.log(`hcloud ${scale}: full refresh of ${refresh.count} nodes: ${refresh.bulk} calls`);
      put(figures, scale, "full refresh of every Node (bulk, paged)", "calls", refresh.bulk, {
        target: atMost(20),
        note: "the node controller's refresh: one listing in pages of 50",
      });
      put(figures, scale, "↳ the process's first, which also resolves HCLOUD_NETWORK", "calls", refresh.first);
      put(figures, scale, "the same, one call per Node (cache off)", "calls", refresh.perNode);
      put(figures, scale, "the same, one by one with hccm's cache (all)", "calls", refresh.perNodeCached);
      const steady = await steadyState(bench, scale);
      const perHour = Math.round((steady.counted.total * 3600) / steady.windowS);
      put(figures, scale, "steady state, cloud calls per hour", "calls/h", perHour, {
        target: atMost(360, "≤ 360 (a tenth of 3600)"),
        note: "nodes, routes and Services converged; hccm's flags",
      });
      const burst = await pacedBurst(bench, SIZES[scale].nodes, SIZES[scale].burst);
      put(figures, scale, "a burst of new Services at the default pace: time to every address", "s", burst.seconds, {
        note: `${burst.services} Services created at once; ${burst.calls} calls, ${burst.rate.toFixed(2)}/s`,
      });
      put(figures, scale, "↳ most calls in any 60 s of it", "calls", burst.peakPerMinute, {
        target: atMost(allowedPerMinute, `≤ ${allowedPerMinute} (60 s × 0.9 + burst 10)`),
        note: "the production pace holds Hetzner's budget of one request a second",
      });
      details[scale] = { refresh, steady, burst };
    }
    return {
      id: "hcloud",
      title: this.title,
      sizes: {
        tenth: `${SIZES.tenth.nodes} nodes, ${SIZES.tenth.services} Services; refresh of ${SIZES.tenth.refresh}; burst of ${SIZES.tenth.burst}`,
        full: `${SIZES.full.nodes} nodes, ${SIZES.full.services} Services; refresh of ${SIZES.full.refresh}; burst of ${SIZES.full.burst}`,
      },
      figures,
      details,
      notes: [
        "The burst runs at the production pace (no HCLOUD_RATE_LIMIT_*), which the end-to-end tests raise to 20/s.",
        "Counted at the hcloud emulator. Steady state: calls in a window of at least 310 s (one 5-minute node refresh), scaled to an hour.",
      ],
    };
  },
};
