/**
 * Cluster contents for the benchmarks, written in-process (so they are not counted as the executable's
 * requests): machines in the simulated cloud, Nodes as a kubelet registers them (tainted) or as the cloud-node
 * controller leaves them (initialised), and LoadBalancer Services with or without their ingress already set.
 */
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { Finalizers, Labels, Taints } from "../../kube/well-known.ts";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import type { Machine } from "../../sandbox/cloud/types.ts";
import { registrationOf } from "../../sandbox/kubelets.ts";
import type { BenchCluster } from "./cluster.ts";

/** Room for 65 536 load balancers, so 2000 Services never exhaust the cloud's address pool. */
export const BENCH_LB_POOL = "100.64.0.0/16";

export function machines(cluster: BenchCluster, count: number): Machine[] {
  return createMachines(cluster.cloud.state, count);
}

/** One /24 per node inside the bench's `--cluster-cidr=10.128.0.0/9`. */
export function podCIDR(i: number): string {
  return `10.${128 + (i >> 8)}.${i & 255}.0/24`;
}

/** Registers every machine as a kubelet with `--cloud-provider=external` would: tainted, Hostname address only. */
export function registerTainted(cluster: BenchCluster, ms: readonly Machine[]): void {
  const at = new Date();
  for (const m of ms) cluster.api.store.create(Resources.nodes, registrationOf(m, at));
}

/**
 * Nodes as the cloud-node controller leaves them (provider ID, the topology labels, the cloud's addresses, no
 * taint), optionally with pod CIDRs for the route controller. A correct controller writes nothing to them.
 */
export function registerInitialised(cluster: BenchCluster, ms: readonly Machine[], withPodCIDRs: boolean): void {
  const at = new Date();
  ms.forEach((m, i) => {
    cluster.api.store.create(Resources.nodes, initialisedNode(m, at, withPodCIDRs ? i : undefined));
  });
}

function initialisedNode(m: Machine, at: Date, cidrIndex: number | undefined): Node {
  const node = registrationOf(m, at, cidrIndex === undefined ? undefined : podCIDR(cidrIndex));
  return {
    ...node,
    metadata: {
      ...node.metadata,
      labels: {
        ...node.metadata?.labels,
        [Labels.zone]: m.zone,
        [Labels.zoneDeprecated]: m.zone,
        [Labels.region]: m.region,
        [Labels.regionDeprecated]: m.region,
        [Labels.instanceType]: m.instanceType,
        [Labels.instanceTypeDeprecated]: m.instanceType,
      },
    },
    spec: {
      ...node.spec,
      providerID: m.providerID,
      taints: (node.spec?.taints ?? []).filter((t) => t.key !== Taints.uninitialized),
    },
    status: { ...node.status, addresses: m.addresses.map((a) => ({ type: a.type, address: a.address })) },
  };
}

export function isInitialised(node: Node): boolean {
  return !(node.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
}

export function loadBalancerService(i: number): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: `lb-${i}`, namespace: "default", labels: { app: `lb-${i}` } },
    spec: {
      type: "LoadBalancer",
      selector: { app: `lb-${i}` },
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
    },
  };
}

export function createServices(cluster: BenchCluster, count: number, first = 1): void {
  for (let i = first; i < first + count; i++) {
    cluster.api.store.create(Resources.services, loadBalancerService(i), { namespace: "default" });
  }
}

export function hasIngress(s: Service): boolean {
  return (s.status?.loadBalancer?.ingress?.length ?? 0) > 0;
}

export function hasFinalizer(s: Service): boolean {
  return (s.metadata?.finalizers ?? []).includes(Finalizers.loadBalancerCleanup);
}
