/**
 * What the digitalocean provider costs of DigitalOcean's budget of 5000 API requests an hour (and 250 a minute) per
 * token, counted at the DigitalOcean emulator.
 *
 * - **Full refresh**: the node controller's refresh of every Node (`instanceMetadataBulk`: one listing of every
 *   Droplet in pages of 200) on the provider the registered factory builds, against one call per Node.
 * - **Steady state**: a converged cluster (Nodes initialised, a load balancer per Service, its ID recorded on the
 *   Service as DO CCM and the provider write it) under the compiled all-in-one with `--cloud-provider=digitalocean`
 *   and DO CCM's flags, at the production pace. The converged state is built in-process with the provider's own
 *   code, unpaced; the manager then starts on it, its start-up syncs settle, and the calls of a window of at least
 *   310 s (one 5-minute refresh of every Node) are scaled to an hour.
 */
import { randomBytes } from "node:crypto";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { Finalizers, Taints } from "../../kube/well-known.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { LOAD_BALANCER_ID_ANNOTATION } from "../../providers/digitalocean/annotations.ts";
import { digitalocean } from "../../providers/digitalocean/provider.ts";
import { type DoEmulator, startDoEmulator } from "../../sandbox/digitalocean/server.ts";
import { createDroplet } from "../../sandbox/digitalocean/state/droplets.ts";
import { registrationOf } from "../../sandbox/kubelets.ts";
import { withCloudManager } from "./ccm.ts";
import type { listAll } from "./cluster.ts";
import { type BenchContext, type Benchmark, withCluster } from "./context.ts";
import { loadBalancerService } from "./fixtures.ts";
import { atMost, type BenchResult, type Figure, put, type Scale } from "./report.ts";

const SIZES: Record<Scale, { nodes: number; services: number; refresh: number }> = {
  tenth: { nodes: 10, services: 5, refresh: 100 },
  full: { nodes: 100, services: 50, refresh: 1000 },
};
const MIN_WINDOW_S = 310;
const HOURLY_BUDGET = 5000;
const ctx: CallContext = { signal: new AbortController().signal };

/** DO CCM's flags (its Deployment passes `--leader-elect=false`; its executable names the provider itself). */
const DO_CCM_FLAGS = ["--cloud-provider=digitalocean", "--leader-elect=false"];

interface Account {
  readonly emulator: DoEmulator;
  readonly env: Record<string, string>;
  calls(): { total: number; byRoute: Record<string, number> };
}

function startAccount(droplets: number): Account {
  const token = randomBytes(32).toString("hex");
  const emulator = startDoEmulator({
    token,
    lbActiveDelayMs: 0,
    rateLimit: { limit: 10_000_000, perHour: 10_000_000 },
  });
  for (let i = 1; i <= droplets; i++) createDroplet(emulator.world, { name: `node-${i}` });
  return {
    emulator,
    env: {
      DO_ACCESS_TOKEN: token,
      DO_OVERRIDE_URL: emulator.endpoint,
      REGION: "nyc3",
      DO_CLUSTER_ID: "b3c4b3c4-0000-4000-8000-000000000001",
    },
    calls() {
      const stats = emulator.calls.snapshot();
      return {
        total: stats.total,
        byRoute: Object.fromEntries(Object.entries(stats.byRoute).map(([k, v]) => [k, v.calls])),
      };
    },
  };
}

/** The provider as the registered factory builds it; `unpaced` drops the client-side pace (for building state). */
function provider(a: Account, unpaced: boolean): Promise<CloudProvider> {
  return digitalocean.build(
    { env: a.env, config: undefined, configSource: undefined },
    unpaced ? { pace: { qps: 0, burst: 1 } } : {},
  );
}

const kubelet = (i: number): Node => registrationOf({ id: `n${i}`, name: `node-${i}` }, new Date(), `10.244.${i}.0/24`);

async function fullRefresh(scale: Scale) {
  const count = SIZES[scale].refresh;
  const a = startAccount(count);
  try {
    const p = await provider(a, true);
    const nodes = Array.from({ length: count }, (_, i) => kubelet(i + 1));
    a.emulator.calls.reset();
    const answers = await p.instancesV2!.instanceMetadataBulk!(ctx, nodes);
    if ([...answers.values()].filter((x) => x).length !== count) throw new Error("the bulk lookup missed nodes");
    const bulk = a.calls().total;
    a.emulator.calls.reset();
    for (const node of nodes) await p.instancesV2!.instanceMetadata(ctx, node);
    return { count, bulk, perNode: a.calls().total };
  } finally {
    await a.emulator.stop();
  }
}

/** Nodes and load balancers as the manager leaves them once converged. */
async function converge(a: Account, store: Parameters<typeof listAll>[0]["api"]["store"], n: number, s: number) {
  const p = await provider(a, true);
  const nodes = Array.from({ length: n }, (_, i) => kubelet(i + 1));
  const answers = await p.instancesV2!.instanceMetadataBulk!(ctx, nodes);
  const ready: Node[] = [];
  for (const node of nodes) {
    const m = answers.get(node.metadata!.name!)?.metadata;
    if (!m) throw new Error(`no metadata for ${node.metadata?.name}`);
    const done: Node = {
      ...node,
      metadata: {
        ...node.metadata,
        labels: {
          ...node.metadata?.labels,
          "node.kubernetes.io/instance-type": m.instanceType,
          "beta.kubernetes.io/instance-type": m.instanceType,
          "topology.kubernetes.io/region": m.region,
          "failure-domain.beta.kubernetes.io/region": m.region,
        },
      },
      spec: {
        ...node.spec,
        providerID: m.providerID,
        taints: (node.spec?.taints ?? []).filter((t) => t.key !== Taints.uninitialized),
      },
      status: { ...node.status, addresses: [...m.nodeAddresses] },
    };
    ready.push(store.create(Resources.nodes, done, {}) as Node);
  }
  for (let i = 1; i <= s; i++) {
    const svc = store.create(Resources.services, loadBalancerService(i), { namespace: "default" }) as Service;
    const status = await p.loadBalancer!.ensureLoadBalancer(ctx, "kubernetes", svc, ready);
    const id = [...a.emulator.world.loadBalancers.values()].find((lb) =>
      lb.spec.tags.includes(`ccm-service:${svc.metadata?.uid}`),
    )?.id;
    const patched = store.patch(
      Resources.services,
      svc.metadata!.name!,
      "merge",
      {
        metadata: {
          finalizers: [Finalizers.loadBalancerCleanup],
          annotations: { [LOAD_BALANCER_ID_ANNOTATION]: id ?? "" },
        },
      },
      { namespace: "default" },
    ) as Service;
    store.patch(
      Resources.services,
      patched.metadata!.name!,
      "merge",
      { status: { loadBalancer: status } },
      { namespace: "default", subresource: "status" },
    );
  }
}

async function quiet(a: Account, quietMs: number, maxMs: number): Promise<void> {
  const started = performance.now();
  let last = a.calls().total;
  let at = performance.now();
  while (performance.now() - at < quietMs) {
    if (performance.now() - started > maxMs)
      throw new Error(`the DigitalOcean emulator did not go quiet in ${maxMs} ms`);
    await Bun.sleep(250);
    const now = a.calls().total;
    if (now !== last) {
      last = now;
      at = performance.now();
    }
  }
}

async function steadyState(bench: BenchContext, scale: Scale) {
  const { nodes, services } = SIZES[scale];
  const a = startAccount(nodes);
  try {
    return await withCluster(async (cluster) => {
      await converge(a, cluster.api.store, nodes, services);
      a.emulator.calls.reset();
      return await withCloudManager(bench.exe, cluster, DO_CCM_FLAGS, a.env, async (output) => {
        await quiet(a, 20_000, 600_000).catch(output.explain);
        const startupCalls = a.calls().total;
        bench.log(`digitalocean ${scale}: start-up cost ${startupCalls} calls`);
        a.emulator.calls.reset();
        const windowS = Math.max(bench.steadySeconds, MIN_WINDOW_S);
        bench.log(`digitalocean ${scale}: counting calls for ${windowS} s`);
        await Bun.sleep(windowS * 1000);
        return { windowS, startupCalls, counted: a.calls() };
      });
    });
  } finally {
    await a.emulator.stop();
  }
}

export const digitalOceanApiCallsBenchmark: Benchmark = {
  id: "digitalocean",
  title: "digitalocean: API calls for a full refresh and at steady state, within 5000 an hour",
  async run(bench): Promise<BenchResult> {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    for (const scale of bench.scales) {
      const refresh = await fullRefresh(scale);
      bench.log(`digitalocean ${scale}: full refresh of ${refresh.count} Droplets: ${refresh.bulk} calls`);
      put(figures, scale, "full refresh of every Node (bulk, paged)", "calls", refresh.bulk, {
        target: atMost(20),
        note: "the node controller's refresh: one listing in pages of 200",
      });
      put(figures, scale, "the same, one call per Node", "calls", refresh.perNode);
      const steady = await steadyState(bench, scale);
      const perHour = Math.round((steady.counted.total * 3600) / steady.windowS);
      put(figures, scale, "steady state, API calls per hour", "calls/h", perHour, {
        target: atMost(HOURLY_BUDGET / 10, `≤ ${HOURLY_BUDGET / 10} (a tenth of 5000)`),
        note: `${SIZES[scale].nodes} nodes and ${SIZES[scale].services} load-balanced Services converged; DO CCM's flags`,
      });
      put(figures, scale, "↳ the manager's start-up on the converged cluster", "calls", steady.startupCalls);
      details[scale] = { refresh, steady };
    }
    return {
      id: "digitalocean",
      title: this.title,
      sizes: {
        tenth: `${SIZES.tenth.nodes} nodes, ${SIZES.tenth.services} Services; refresh of ${SIZES.tenth.refresh}`,
        full: `${SIZES.full.nodes} nodes, ${SIZES.full.services} Services; refresh of ${SIZES.full.refresh}`,
      },
      figures,
      details,
      notes: [
        "Counted at the DigitalOcean emulator. Steady state: calls in a window of at least 310 s (one 5-minute node refresh), scaled to an hour.",
      ],
    };
  },
};
