/**
 * Issue 18: what the hcloud provider costs of Hetzner's budget of 3600 API requests an hour per project, counted at
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
import { randomBytes } from "node:crypto";
import { Registry } from "prom-client";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { Finalizers, Taints } from "../../kube/well-known.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { createHcloudTransport } from "../../providers/hcloud/api/client.ts";
import { readHcloudConfig } from "../../providers/hcloud/config.ts";
import { hcloud, hcloudProvider } from "../../providers/hcloud/provider.ts";
import { type HcloudEmulator, startHcloudEmulator } from "../../sandbox/hcloud/server.ts";
import { createNetwork } from "../../sandbox/hcloud/state/networks.ts";
import { createServer } from "../../sandbox/hcloud/state/servers.ts";
import type { Network } from "../../sandbox/hcloud/state/types.ts";
import { registrationOf } from "../../sandbox/kubelets.ts";
import { collectOutput, freePort } from "../lib/processes.ts";
import { listAll, waitUntil } from "./cluster.ts";
import { type BenchContext, type Benchmark, withCluster } from "./context.ts";
import { loadBalancerService, podCIDR } from "./fixtures.ts";
import { atMost, type BenchResult, type Figure, put, type Scale } from "./report.ts";

const SIZES: Record<Scale, { nodes: number; services: number; refresh: number }> = {
  tenth: { nodes: 10, services: 5, refresh: 100 },
  full: { nodes: 100, services: 50, refresh: 1000 },
};
/** The node controller refreshes every Node every 5 minutes (`--node-status-update-frequency`). */
const MIN_WINDOW_S = 310;
const CLUSTER_CIDR = "10.128.0.0/9";
const ctx: CallContext = { signal: new AbortController().signal };

/** hccm's flags, as its Deployment passes them. */
const HCCM_FLAGS = [
  "--cloud-provider=hcloud",
  "--allow-untagged-cloud",
  "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true",
  "--route-reconciliation-period=30s",
  "--webhook-secure-port=0",
  `--cluster-cidr=${CLUSTER_CIDR}`,
  "--leader-elect=false",
];

interface Project {
  readonly emulator: HcloudEmulator;
  readonly network: Network;
  readonly env: Record<string, string>;
  /** Calls since the last reset, by `METHOD /route`. */
  calls(): { total: number; byRoute: Record<string, number> };
}

function startProject(servers: number): Project {
  const token = randomBytes(32).toString("hex");
  const emulator = startHcloudEmulator({
    token,
    actionDurationMs: 0,
    rateLimit: { limit: 1_000_000, perHour: 1_000_000 },
  });
  const network = createNetwork(emulator.world, {
    name: "k8s",
    ip_range: "10.0.0.0/16",
    subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.0.0/18" }],
  });
  for (let i = 1; i <= servers; i++) {
    createServer(emulator.world, {
      name: `node-${i}`,
      server_type: "cx22",
      image: "ubuntu-24.04",
      networks: [network.id],
    });
  }
  return {
    emulator,
    network,
    env: {
      HCLOUD_TOKEN: token,
      HCLOUD_ENDPOINT: emulator.endpoint,
      HCLOUD_NETWORK: "k8s",
      HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
      // lb11 takes 25 targets; every Node of the full-size cluster is a target of every load balancer.
      HCLOUD_LOAD_BALANCERS_TYPE: "lb31",
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

/** The provider on the project without the client-side rate limit: for building state, not for measuring. */
async function unpacedProvider(p: Project): Promise<CloudProvider> {
  const { config } = await readHcloudConfig({
    env: p.env,
    config: undefined,
    configSource: undefined,
    readFile: (path) => Bun.file(path).text(),
  });
  const transport = createHcloudTransport({
    token: config.token,
    endpoint: config.endpoint,
    rateLimit: { qps: 0, burst: 1 },
    metrics: new Registry(),
  });
  return hcloudProvider({ config, transport });
}

const kubelet = (i: number): Node => registrationOf({ id: `n${i}`, name: `node-${i}` }, new Date(), podCIDR(i - 1));

/** Nodes, routes and load balancers as the manager leaves them once it has converged. */
async function converge(p: Project, store: Parameters<typeof listAll>[0]["api"]["store"], n: number, s: number) {
  const provider = await unpacedProvider(p);
  const nodes = Array.from({ length: n }, (_, i) => kubelet(i + 1));
  const answers = await provider.instancesV2!.instanceMetadataBulk!(ctx, nodes);
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
          "topology.kubernetes.io/zone": m.zone,
          "failure-domain.beta.kubernetes.io/zone": m.zone,
          "topology.kubernetes.io/region": m.region,
          "failure-domain.beta.kubernetes.io/region": m.region,
          ...m.additionalLabels,
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
    const gateway = m.nodeAddresses.find((a) => a.type === "InternalIP")?.address;
    if (!gateway) throw new Error(`${node.metadata?.name} has no private IP`);
    p.network.routes.push({ destination: node.spec!.podCIDR!, gateway });
  }
  for (let i = 1; i <= s; i++) {
    const svc = store.create(Resources.services, loadBalancerService(i), { namespace: "default" }) as Service;
    const status = await provider.loadBalancer!.ensureLoadBalancer(ctx, "kubernetes", svc, ready);
    const withFinalizer = store.patch(
      Resources.services,
      svc.metadata!.name!,
      "merge",
      { metadata: { finalizers: [Finalizers.loadBalancerCleanup] } },
      { namespace: "default" },
    ) as Service;
    store.patch(
      Resources.services,
      withFinalizer.metadata!.name!,
      "merge",
      { status: { loadBalancer: status } },
      {
        namespace: "default",
        subresource: "status",
      },
    );
  }
}

async function steadyState(bench: BenchContext, scale: Scale) {
  const { nodes, services } = SIZES[scale];
  const p = startProject(nodes);
  try {
    return await withCluster(async (cluster) => {
      await converge(p, cluster.api.store, nodes, services);
      const setupCalls = p.calls().total;
      p.emulator.calls.reset();
      const port = freePort();
      const proc = Bun.spawn(
        [
          bench.exe,
          ...HCCM_FLAGS,
          `--kubeconfig=${cluster.kubeconfig}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${port}`,
        ],
        { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin", ...p.env } },
      );
      const output = collectOutput(proc);
      try {
        // Start-up: every Service synced once, routes listed; then quiet but for the periodic work.
        await waitUntil(() => output.text().includes('started "service-lb-controller"'), "the service controller", {
          timeoutMs: 60_000,
        });
        const started = performance.now();
        await quiet(p, 20_000, 600_000).catch((err) => {
          throw new Error(`${(err as Error).message}; the manager said:\n${output.text().slice(-4000)}`);
        });
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
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
    });
  } finally {
    await p.emulator.stop();
  }
}

/** Waits until the emulator has had no call for `quietMs`. */
async function quiet(p: Project, quietMs: number, maxMs: number): Promise<void> {
  const started = performance.now();
  let last = p.calls().total;
  let at = performance.now();
  while (performance.now() - at < quietMs) {
    if (performance.now() - started > maxMs) throw new Error(`the hcloud emulator did not go quiet in ${maxMs} ms`);
    await Bun.sleep(250);
    const now = p.calls().total;
    if (now !== last) {
      last = now;
      at = performance.now();
    }
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
      details[scale] = { refresh, steady };
    }
    return {
      id: "hcloud",
      title: this.title,
      sizes: {
        tenth: `${SIZES.tenth.nodes} nodes, ${SIZES.tenth.services} Services; refresh of ${SIZES.tenth.refresh}`,
        full: `${SIZES.full.nodes} nodes, ${SIZES.full.services} Services; refresh of ${SIZES.full.refresh}`,
      },
      figures,
      details,
      notes: [
        "Counted at the hcloud emulator. Steady state: calls in a window of at least 310 s (one 5-minute node refresh), scaled to an hour.",
      ],
    };
  },
};
