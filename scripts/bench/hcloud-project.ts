/**
 * An hcloud project at the emulator for the hcloud benchmarks: servers in network `k8s`, hccm's flags and
 * environment, call counts, and the converged state (nodes initialised, routes, load balancers) built in-process
 * with the provider's own code without its client-side rate limit, which would make building it take long.
 */
import { randomBytes } from "node:crypto";
import { Registry } from "prom-client";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { Finalizers, Taints } from "../../kube/well-known.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { createHcloudTransport } from "../../providers/hcloud/api/client.ts";
import { readHcloudConfig } from "../../providers/hcloud/config.ts";
import { hcloudProvider } from "../../providers/hcloud/provider.ts";
import { type HcloudEmulator, startHcloudEmulator } from "../../sandbox/hcloud/server.ts";
import { createNetwork } from "../../sandbox/hcloud/state/networks.ts";
import { createServer } from "../../sandbox/hcloud/state/servers.ts";
import type { Network } from "../../sandbox/hcloud/state/types.ts";
import { registrationOf } from "../../sandbox/kubelets.ts";
import type { listAll } from "./cluster.ts";
import { loadBalancerService, podCIDR } from "./fixtures.ts";

const CLUSTER_CIDR = "10.128.0.0/9";
export const ctx: CallContext = { signal: new AbortController().signal };

/** hccm's flags, as its Deployment passes them. */
export const HCCM_FLAGS = [
  "--cloud-provider=hcloud",
  "--allow-untagged-cloud",
  "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true",
  "--route-reconciliation-period=30s",
  "--webhook-secure-port=0",
  `--cluster-cidr=${CLUSTER_CIDR}`,
  "--leader-elect=false",
];

export interface Project {
  readonly emulator: HcloudEmulator;
  readonly network: Network;
  readonly env: Record<string, string>;
  /** Calls since the last reset, by `METHOD /route`. */
  calls(): { total: number; byRoute: Record<string, number> };
}

export function startProject(servers: number): Project {
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

export const kubelet = (i: number): Node =>
  registrationOf({ id: `n${i}`, name: `node-${i}` }, new Date(), podCIDR(i - 1));

/** Nodes, routes and load balancers as the manager leaves them once it has converged. */
export async function converge(p: Project, store: Parameters<typeof listAll>[0]["api"]["store"], n: number, s: number) {
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

/** Waits until the emulator has had no call for `quietMs`. */
export async function quiet(p: Project, quietMs: number, maxMs: number): Promise<void> {
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
