/**
 * What the node controller's refresh of every Node costs in cloud API calls, for the providers whose refresh is a
 * paged bulk listing (`instanceMetadataBulk`) rather than one lookup per Node: scaleway (Instances and Elastic Metal
 * servers in every zone the provider knows, IPAM per region and project in use) and openstack (Nova
 * `servers/detail` with markers and one Neutron port listing). Each is counted at its emulator, seeded as
 * `sandbox --cloud=<name>` seeds it, on the provider the
 * registered factory builds, against the one-by-one path (`instanceMetadata` per Node) of the same provider. Both are
 * built unpaced: the client-side pace changes how long, not how many. The scaleway benchmark also counts the
 * steady state of 100 nodes and 50 load-balanced Services under the compiled manager (scaleway-steady-state.ts).
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { openstack } from "../../providers/openstack/provider.ts";
import { scaleway } from "../../providers/scaleway/provider.ts";
import { startOpenStackSandboxProject } from "../../sandbox/openstack/sandbox-project.ts";
import { isMetal, startScalewaySandboxProject } from "../../sandbox/scaleway/sandbox-project.ts";
import type { BenchContext, Benchmark } from "./context.ts";
import type { BenchResult, Figure, Scale } from "./report.ts";
import { put } from "./report.ts";
import { STEADY_SIZES, scalewaySteadyState } from "./scaleway-steady-state.ts";

const SIZES: Record<Scale, number> = { tenth: 100, full: 1000 };
const ctx: CallContext = { signal: new AbortController().signal };
const unpaced = { pace: { qps: 0, burst: 1 } };

/** An initialised Node of the sandbox's kind: its name and the provider ID the provider gave it. */
const node = (name: string, providerID: string): Node => ({ metadata: { name }, spec: { providerID } });

interface Counted {
  readonly count: number;
  readonly first: number;
  readonly bulk: number;
  readonly perNode: number;
  readonly byRoute: Record<string, number>;
}

/** The refresh twice (the first also authenticates or resolves once per process), then one call per Node. */
async function count(
  provider: CloudProvider,
  nodes: readonly Node[],
  calls: { total(): number; byRoute(): Record<string, number>; reset(): void },
): Promise<Counted> {
  const instances = provider.instancesV2;
  if (!instances?.instanceMetadataBulk) throw new Error(`${provider.providerName} has no bulk node refresh`);
  const refresh = async () => {
    calls.reset();
    const answers = await instances.instanceMetadataBulk?.(ctx, nodes);
    const found = [...(answers?.values() ?? [])].filter((a) => a).length;
    if (found !== nodes.length) throw new Error(`the bulk refresh found ${found} of ${nodes.length} nodes`);
    return calls.total();
  };
  const first = await refresh();
  const bulk = await refresh();
  const byRoute = calls.byRoute();
  calls.reset();
  for (const n of nodes) await instances.instanceMetadata(ctx, n);
  return { count: nodes.length, first, bulk, perNode: calls.total(), byRoute };
}

type Emulator = { calls: { snapshot(): { total: number; byRoute: Record<string, { calls: number }> }; reset(): void } };
const counter = (e: Emulator) => ({
  total: () => e.calls.snapshot().total,
  byRoute: () => Object.fromEntries(Object.entries(e.calls.snapshot().byRoute).map(([k, v]) => [k, v.calls])),
  reset: () => e.calls.reset(),
});

async function scalewayRefresh(size: number): Promise<Counted> {
  const names = Array.from({ length: size }, (_, i) => `node-${i + 1}`);
  const p = startScalewaySandboxProject({ servers: names });
  try {
    const world = p.emulator.world;
    const ids = new Map([...world.instances.values(), ...world.baremetal.values()].map((s) => [s.name, s.id]));
    const nodes = names.map((name, i) =>
      node(name, `scaleway://${isMetal(i) ? "baremetal" : "instance"}/fr-par-2/${ids.get(name)}`),
    );
    const provider = await scaleway.build({ env: p.env, config: undefined, configSource: undefined }, unpaced);
    return await count(provider, nodes, counter(p.emulator));
  } finally {
    await p.stop();
  }
}

async function openstackRefresh(size: number): Promise<Counted> {
  const names = Array.from({ length: size }, (_, i) => `node-${i + 1}`);
  const p = startOpenStackSandboxProject({ servers: names });
  try {
    const nodes = [...p.emulator.world.servers.values()].map((s) => node(s.name, `openstack:///${s.id}`));
    const provider = await openstack.build(
      { env: {}, config: p.cloudConf, configSource: "--cloud-config=cloud.conf" },
      unpaced,
    );
    return await count(provider, nodes, counter(p.emulator));
  } finally {
    await p.stop();
  }
}

function refreshBenchmark(o: {
  readonly id: string;
  readonly title: string;
  readonly run: (size: number) => Promise<Counted>;
  readonly bulkNote: string;
  /** What the process's first refresh does more, when it costs more than the next. */
  readonly firstNote?: string;
  /** More figures of the same provider at each scale (the steady state), and what its sizes and notes add. */
  readonly more?: {
    run(bench: BenchContext, scale: Scale, figures: Figure[]): Promise<unknown>;
    readonly sizes: Record<Scale, string>;
    readonly note: string;
  };
}): Benchmark {
  return {
    id: o.id,
    title: o.title,
    async run(bench): Promise<BenchResult> {
      const figures: Figure[] = [];
      const details: Record<string, unknown> = {};
      for (const scale of bench.scales) {
        const r = await o.run(SIZES[scale]);
        bench.log(`${o.id} ${scale}: refresh of ${r.count} nodes: ${r.bulk} calls bulk, ${r.perNode} one by one`);
        put(figures, scale, "full refresh of every Node (bulk, paged)", "calls", r.bulk, { note: o.bulkNote });
        if (o.firstNote) put(figures, scale, `↳ the process's first, which also ${o.firstNote}`, "calls", r.first);
        else if (r.first !== r.bulk)
          throw new Error(`${o.id}: the first refresh cost ${r.first} calls, the next ${r.bulk}`);
        put(figures, scale, "the same, Node by Node (instanceMetadata for each)", "calls", r.perNode);
        details[scale] = o.more ? { refresh: r, steady: await o.more.run(bench, scale, figures) } : r;
      }
      const sized = (scale: Scale) => `refresh of ${SIZES[scale]} servers${o.more ? `; ${o.more.sizes[scale]}` : ""}`;
      return {
        id: o.id,
        title: o.title,
        sizes: { tenth: sized("tenth"), full: sized("full") },
        figures,
        details,
        notes: [
          `Counted at the ${o.id} emulator, seeded as sandbox --cloud=${o.id} seeds it; the provider built unpaced (the pace changes how long, not how many).`,
          ...(o.more ? [o.more.note] : []),
        ],
      };
    },
  };
}

export const scalewayApiCallsBenchmark = refreshBenchmark({
  id: "scaleway",
  title:
    "scaleway: API calls for a full node refresh (Instances and Elastic Metal, bulk against one by one) and at steady state",
  run: scalewayRefresh,
  bulkNote:
    "every Instance zone (9) and Elastic Metal zone (6) in pages of 100, IPAM per region and project in use; every third server Elastic Metal",
  more: {
    async run(bench, scale, figures) {
      const steady = await scalewaySteadyState(bench, scale);
      const perHour = Math.round((steady.counted.total * 3600) / steady.windowS);
      const { nodes, services } = STEADY_SIZES[scale];
      bench.log(`scaleway ${scale}: steady state ${perHour} calls an hour`);
      put(figures, scale, "steady state, API calls per hour", "calls/h", perHour, {
        note: `${nodes} nodes and ${services} load-balanced Services converged; scw CCM's flags`,
      });
      put(figures, scale, "↳ the manager's start-up on the converged cluster", "calls", steady.startupCalls);
      return steady;
    },
    sizes: {
      tenth: `${STEADY_SIZES.tenth.nodes} nodes, ${STEADY_SIZES.tenth.services} Services at rest`,
      full: `${STEADY_SIZES.full.nodes} nodes, ${STEADY_SIZES.full.services} Services at rest`,
    },
    note: "Steady state: the compiled all-in-one on a converged cluster at the production pace; the calls of a window of at least 310 s (one 5-minute node refresh), scaled to an hour.",
  },
});

export const openstackApiCallsBenchmark = refreshBenchmark({
  id: "openstack",
  title: "openstack: API calls for a full node refresh, bulk against one by one",
  run: openstackRefresh,
  bulkNote: "Nova servers/detail in pages of 1000 with markers, one Neutron port listing",
  firstNote: "asks Keystone for a token",
});
