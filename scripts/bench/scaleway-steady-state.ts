/**
 * What the scaleway provider costs at rest: a converged cluster (Nodes initialised, a load balancer per Service with
 * its backends and frontends, the Service's ingress) under the compiled all-in-one with `--cloud-provider=scaleway`
 * and scw CCM's flags and environment, at the production pace, counted at the Scaleway emulator. The converged state
 * is built in-process with the provider's own code, unpaced; the manager then starts on it, its start-up syncs
 * settle, and the calls of a window of at least 310 s (one 5-minute refresh of every Node) are scaled to an hour.
 */
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { Finalizers, Taints } from "../../kube/well-known.ts";
import type { CallContext } from "../../providers/cloud.ts";
import { scaleway } from "../../providers/scaleway/provider.ts";
import { registrationOf } from "../../sandbox/kubelets.ts";
import { type ScalewaySandboxProject, startScalewaySandboxProject } from "../../sandbox/scaleway/sandbox-project.ts";
import { withCloudManager } from "./ccm.ts";
import type { listAll } from "./cluster.ts";
import { type BenchContext, withCluster } from "./context.ts";
import { loadBalancerService } from "./fixtures.ts";
import type { Scale } from "./report.ts";

export const STEADY_SIZES: Record<Scale, { nodes: number; services: number }> = {
  tenth: { nodes: 10, services: 5 },
  full: { nodes: 100, services: 50 },
};
const MIN_WINDOW_S = 310;
const ctx: CallContext = { signal: new AbortController().signal };

/** scw CCM's flags (its examples/k8s-scaleway-ccm-latest.yml). */
const SCW_CCM_FLAGS = ["--cloud-provider=scaleway", "--allow-untagged-cloud", "--leader-elect=false"];

const calls = (p: ScalewaySandboxProject) => p.emulator.calls.snapshot().total;

/** Nodes and load balancers as the manager leaves them once converged. */
async function converge(
  p: ScalewaySandboxProject,
  store: Parameters<typeof listAll>[0]["api"]["store"],
  names: readonly string[],
  services: number,
) {
  const provider = await scaleway.build(
    { env: p.env, config: undefined, configSource: undefined },
    { pace: { qps: 0, burst: 1 } },
  );
  const nodes = names.map((name, i) => registrationOf({ id: `n${i + 1}`, name }, new Date(), `10.244.${i}.0/24`));
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
          "topology.kubernetes.io/region": m.region,
          "topology.kubernetes.io/zone": m.zone,
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
  for (let i = 1; i <= services; i++) {
    const svc = store.create(Resources.services, loadBalancerService(i), { namespace: "default" }) as Service;
    const status = await provider.loadBalancer!.ensureLoadBalancer(ctx, "kubernetes", svc, ready);
    store.patch(
      Resources.services,
      svc.metadata!.name!,
      "merge",
      { metadata: { finalizers: [Finalizers.loadBalancerCleanup] } },
      { namespace: "default" },
    );
    store.patch(
      Resources.services,
      svc.metadata!.name!,
      "merge",
      { status: { loadBalancer: status } },
      { namespace: "default", subresource: "status" },
    );
  }
}

async function quiet(p: ScalewaySandboxProject, quietMs: number, maxMs: number): Promise<void> {
  const started = performance.now();
  let last = calls(p);
  let at = performance.now();
  while (performance.now() - at < quietMs) {
    if (performance.now() - started > maxMs) throw new Error(`the Scaleway emulator did not go quiet in ${maxMs} ms`);
    await Bun.sleep(250);
    const now = calls(p);
    if (now !== last) {
      last = now;
      at = performance.now();
    }
  }
}

/** The manager on a converged cluster of the scale's size: its start-up calls, then the calls of a window. */
export async function scalewaySteadyState(bench: BenchContext, scale: Scale) {
  const { nodes, services } = STEADY_SIZES[scale];
  const names = Array.from({ length: nodes }, (_, i) => `node-${i + 1}`);
  const p = startScalewaySandboxProject({ servers: names });
  try {
    return await withCluster(async (cluster) => {
      await converge(p, cluster.api.store, names, services);
      if (p.emulator.world.lb.lbs.size !== services)
        throw new Error(`${p.emulator.world.lb.lbs.size} load balancers for ${services} Services`);
      p.emulator.calls.reset();
      return await withCloudManager(bench.exe, cluster, SCW_CCM_FLAGS, p.env, async (output) => {
        await quiet(p, 20_000, 600_000).catch(output.explain);
        const startupCalls = calls(p);
        bench.log(`scaleway ${scale}: start-up cost ${startupCalls} calls`);
        p.emulator.calls.reset();
        const windowS = Math.max(bench.steadySeconds, MIN_WINDOW_S);
        bench.log(`scaleway ${scale}: counting calls for ${windowS} s`);
        await Bun.sleep(windowS * 1000);
        const snapshot = p.emulator.calls.snapshot();
        const byRoute = Object.fromEntries(Object.entries(snapshot.byRoute).map(([k, v]) => [k, v.calls]));
        return { windowS, startupCalls, counted: { total: snapshot.total, byRoute } };
      });
    });
  } finally {
    await p.stop();
  }
}
