/**
 * A small, correct provider over an in-memory cloud, with every capability, for the suite's own tests: it must
 * pass every check, and each `Breakage` breaks exactly one contract so a test can show the suite catches it.
 */
import type { Node, Service } from "../../../kube/objects.ts";
import {
  type CidrAllocator,
  type CloudProvider,
  defaultLoadBalancerName,
  type InstanceMetadata,
  type Instances,
  type InstancesV2,
  type LoadBalancer,
  type Route,
  type Routes,
} from "../../cloud.ts";
import { InstanceNotFoundError, wrapError } from "../../errors.ts";
import type { ArrangedMachine, ConformanceTarget } from "../types.ts";

export type Breakage =
  | "stopped-is-gone"
  | "stopped-not-shut-down"
  | "not-found-wrapped"
  | "exists-throws-when-gone"
  | "metadata-null"
  | "no-name-lookup"
  | "provider-id-unstable"
  | "zone-empty"
  | "addresses-empty"
  | "bulk-ignores-power"
  | "instance-id-with-scheme"
  | "lb-name-too-long"
  | "lb-name-shared"
  | "ensure-new-address-each-time"
  | "ensure-duplicates"
  | "update-drops-ports"
  | "delete-missing-throws"
  | "get-after-delete"
  | "ingress-empty"
  | "route-name-from-hint-only"
  | "route-target-lost"
  | "rate-limit-zero"
  | "pod-cidrs-same-family"
  | "pod-cidrs-gone-empty";

interface Machine {
  readonly id: string;
  readonly name: string;
  state: "running" | "stopped";
}

export function toyTarget(broken: readonly Breakage[] = []): ConformanceTarget {
  const is = (b: Breakage) => broken.includes(b);
  const machines = new Map<string, Machine>();
  const lbs = new Map<string, { hosts: string[]; ports: number[]; ip: string }>();
  const routes = new Map<string, Route>();
  let serial = 0;

  const pid = (m: Machine) => `toy://${m.id}`;
  function find(node: Node): Machine | undefined {
    const p = node.spec?.providerID;
    if (p) return machines.get(p.replace(/^toy:\/\//, ""));
    if (is("no-name-lookup")) return undefined;
    return [...machines.values()].find((m) => m.name === node.metadata?.name);
  }
  function meta(m: Machine): InstanceMetadata {
    return {
      providerID: is("provider-id-unstable") ? `${pid(m)}-${++serial}` : pid(m),
      instanceType: "toy-1",
      nodeAddresses: is("addresses-empty") ? [] : [{ type: "InternalIP", address: `10.1.0.${Number(m.id) % 250}` }],
      zone: is("zone-empty") ? "" : "toy-a",
      region: "toy",
    };
  }
  const down = (m: Machine) => m.state === "stopped" && !is("stopped-not-shut-down");

  const instancesV2 = {
    async instanceExists(_ctx, node) {
      const m = find(node);
      if (!m && is("exists-throws-when-gone")) throw new InstanceNotFoundError(node.metadata?.name);
      return m !== undefined && !(m.state === "stopped" && is("stopped-is-gone"));
    },
    async instanceShutdown(_ctx, node) {
      const m = find(node);
      return m !== undefined && down(m);
    },
    async instanceMetadata(_ctx, node) {
      const m = find(node);
      if (!m) {
        const err = new InstanceNotFoundError(node.metadata?.name);
        throw is("not-found-wrapped") ? wrapError("toy/instances.instanceMetadata", err) : err;
      }
      return is("metadata-null") ? null : meta(m);
    },
    async instanceMetadataBulk(_ctx, nodes) {
      return new Map(
        nodes.map((n) => {
          const m = find(n);
          return [
            n.metadata?.name ?? "",
            m ? { metadata: meta(m), shutdown: !is("bulk-ignores-power") && down(m) } : null,
          ];
        }),
      );
    },
  } satisfies InstancesV2;

  function byName(name: string): Machine {
    const m = [...machines.values()].find((x) => x.name === name);
    if (!m) throw new InstanceNotFoundError(name);
    return m;
  }
  const byID = (providerID: string) => machines.get(providerID.replace(/^toy:\/\//, ""));
  const instances = {
    nodeAddresses: async (_ctx, name) => [...meta(byName(name)).nodeAddresses],
    nodeAddressesByProviderID: async (_ctx, p) => [...meta(byID(p) ?? byName("")).nodeAddresses],
    instanceID: async (_ctx, name) => (is("instance-id-with-scheme") ? pid(byName(name)) : byName(name).id),
    instanceType: async (_ctx, name) => meta(byName(name)).instanceType,
    instanceTypeByProviderID: async (_ctx, p) => meta(byID(p) ?? byName("")).instanceType,
    instanceExistsByProviderID: async (_ctx, p) => byID(p) !== undefined,
    instanceShutdownByProviderID: async (_ctx, p) => byID(p)?.state === "stopped",
  } satisfies Instances;

  const nameOf = (s: Service) =>
    is("lb-name-shared") ? "toy-lb" : `${defaultLoadBalancerName(s)}${is("lb-name-too-long") ? "x".repeat(40) : ""}`;
  const status = (ip: string) => ({ ingress: is("ingress-empty") ? [] : [{ ip }] });
  const loadBalancer = {
    getLoadBalancerName: (_ctx, _cluster, s) => nameOf(s),
    async getLoadBalancer(_ctx, _cluster, s) {
      const lb = lbs.get(nameOf(s));
      if (!lb && is("get-after-delete")) return status("192.0.2.1");
      return lb && status(lb.ip);
    },
    async ensureLoadBalancer(_ctx, _cluster, s, nodes) {
      const name = is("ensure-duplicates") ? `${nameOf(s)}-${++serial}` : nameOf(s);
      const current = lbs.get(name);
      const ip = current && !is("ensure-new-address-each-time") ? current.ip : `192.0.2.${(++serial % 250) + 1}`;
      const ports = (s.spec?.ports ?? []).map((p) => p.port);
      lbs.set(name, { hosts: nodes.map((n) => n.metadata?.name ?? ""), ports, ip });
      return status(ip);
    },
    async updateLoadBalancer(_ctx, _cluster, s, nodes) {
      const lb = lbs.get(nameOf(s));
      if (!lb) throw new Error(`toy/load-balancers.update: no load balancer ${nameOf(s)}`);
      lb.hosts = nodes.map((n) => n.metadata?.name ?? "");
      if (is("update-drops-ports")) lb.ports = [];
    },
    async ensureLoadBalancerDeleted(_ctx, _cluster, s) {
      if (!lbs.delete(nameOf(s)) && is("delete-missing-throws")) throw new Error("toy: no such load balancer");
    },
  } satisfies LoadBalancer;

  const routeAPI = {
    listRoutes: async () => [...routes.values()].map((r) => ({ ...r })),
    async createRoute(_ctx, _cluster, hint, route) {
      const name = is("route-name-from-hint-only") ? hint : `${hint}-${route.destinationCIDR}`;
      routes.set(name, { ...route, name, targetNode: is("route-target-lost") ? "" : route.targetNode });
    },
    async deleteRoute(_ctx, _cluster, route) {
      routes.delete(route.name);
    },
  } satisfies Routes;

  const cidrAllocator = {
    async podCIDRs(_ctx, node) {
      const m = find(node);
      if (!m) {
        if (is("pod-cidrs-gone-empty")) return [];
        throw new InstanceNotFoundError(`toy: no machine for ${node.metadata?.name}`);
      }
      return is("pod-cidrs-same-family")
        ? [`10.244.${m.id}.0/24`, `10.245.${m.id}.0/24`]
        : [`10.244.${m.id}.0/24`, `fd00:10:244:${m.id}::/64`];
    },
  } satisfies CidrAllocator;

  const provider: CloudProvider = {
    providerName: "toy",
    hasClusterID: () => true,
    instancesV2,
    instances,
    zones: {
      getZone: async () => ({ failureDomain: "toy-a", region: "toy" }),
      getZoneByProviderID: async () => ({ failureDomain: "toy-a", region: "toy" }),
      getZoneByNodeName: async () => ({ failureDomain: "toy-a", region: "toy" }),
    },
    clusters: { listClusters: async () => ["toy"], master: async () => "127.0.0.1" },
    loadBalancer,
    routes: routeAPI,
    cidrAllocator,
    rateLimit: { qps: is("rate-limit-zero") ? 0 : 5, burst: 10 },
  };

  return {
    provider,
    arrange: {
      createMachine({ name }): ArrangedMachine {
        const m: Machine = { id: String(++serial), name, state: "running" };
        machines.set(m.id, m);
        return { nodeName: name, providerID: pid(m) };
      },
      stopMachine: ({ providerID }) => {
        byID(providerID)!.state = "stopped";
      },
      deleteMachine: ({ providerID }) => {
        machines.delete(providerID.replace(/^toy:\/\//, ""));
      },
      listLoadBalancers: () => [...lbs].map(([name, lb]) => ({ name, hosts: lb.hosts, ports: lb.ports })),
    },
  };
}
