/**
 * An in-memory, programmable, call-recording provider for controller tests (upstream's `fake` cloud).
 *
 * Defaults mirror upstream so ported scenarios read the same: everything implemented except `instancesV2`
 * (`enableInstancesV2` turns it on), every recorded call appended to `calls` under upstream's name
 * (`create`, `update`, `delete`, `instance-metadata-by-provider-id`, …), `getLoadBalancer` not recorded.
 * Beyond upstream: `calls` carries the arguments too, and `override(method, fn)` programs any single method.
 */

import type { LoadBalancerStatus, Node, NodeAddress, Service } from "../../kube/objects.ts";
import type {
  BulkInstanceInfo,
  CallContext,
  CidrAllocator,
  CloudProvider,
  Clusters,
  InstanceMetadata,
  Instances,
  InstancesV2,
  LoadBalancer,
  RateLimit,
  Route,
  Routes,
  Zone,
  Zones,
} from "../cloud.ts";
import { defaultLoadBalancerName } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";

export interface FakeCall {
  readonly name: string;
  readonly args: readonly unknown[];
}

export interface FakeBalancer {
  readonly name: string;
  readonly region: string;
  readonly loadBalancerIP: string;
  readonly ports: readonly { port: number; protocol: string }[];
  readonly hosts: readonly string[];
}

export interface FakeRoute {
  readonly clusterName: string;
  readonly route: Route;
}

type Overridable = {
  [K in keyof FakeMethods]?: FakeMethods[K];
};
type FakeMethods = Omit<InstancesV2, "instanceMetadataBulk"> &
  Instances &
  Zones &
  LoadBalancer &
  Routes &
  Clusters &
  CidrAllocator &
  Required<Pick<InstancesV2, "instanceMetadataBulk">>;

export class FakeCloud implements CloudProvider {
  provider = "";
  get providerName(): string {
    return this.provider || "fake";
  }

  // Switches (upstream names).
  disableInstances = false;
  disableRoutes = false;
  disableLoadBalancers = false;
  disableZones = false;
  disableClusters = false;
  enableInstancesV2 = false;
  /** Beyond upstream: offer `instanceMetadataBulk` on InstancesV2. */
  enableBulk = false;
  rateLimit: RateLimit | undefined = undefined;

  // Programmable answers (upstream field names, camel-cased).
  err: Error | undefined;
  exists = false;
  externalIP = "";
  balancerIPMode: "VIP" | "Proxy" | undefined;
  addresses: NodeAddress[] = [];
  extID: Record<string, string> = {};
  extIDErr: Record<string, Error> = {};
  instanceTypes: Record<string, string> = {};
  providerID: Record<string, string> = {};
  existsByProviderID = false;
  errByProviderID: Error | undefined;
  nodeShutdown = false;
  errShutdownByProviderID: Error | undefined;
  metadataErr: Error | undefined;
  additionalLabels: Record<string, string> | undefined;
  zone: Zone = { failureDomain: "", region: "" };
  clusterList: string[] = [];
  masterName = "";
  /**
   * Beyond upstream: the pod CIDRs the cloud assigned, by provider ID; set ⇒ the fake offers `cidrAllocator`, which
   * answers a provider ID not listed with `InstanceNotFoundError`.
   */
  podCIDRsByProviderID: Record<string, string[]> | undefined;
  /** Added before every recorded call, to simulate a slow cloud. */
  requestDelayMs = 0;

  readonly calls: FakeCall[] = [];
  readonly balancers = new Map<string, FakeBalancer>();
  readonly routeMap = new Map<string, FakeRoute>();
  readonly ensureCalls: { service: Service; hosts: readonly Node[] }[] = [];
  readonly updateCalls: { service: Service; hosts: readonly Node[] }[] = [];
  readonly #overrides: Overridable = {};

  /** Replace one method's behaviour; the call is still recorded. */
  override<K extends keyof FakeMethods>(method: K, fn: FakeMethods[K]): this {
    (this.#overrides as Record<string, unknown>)[method] = fn;
    return this;
  }

  /** Names of recorded calls, in order (upstream's `Calls`). */
  callNames(): string[] {
    return this.calls.map((c) => c.name);
  }

  clearCalls(): void {
    this.calls.length = 0;
  }

  hasClusterID(): boolean {
    return true;
  }

  get instances(): Instances | undefined {
    return this.disableInstances ? undefined : this.#instances;
  }
  get instancesV2(): InstancesV2 | undefined {
    if (!this.enableInstancesV2) return undefined;
    return this.enableBulk ? this.#instancesV2Bulk : this.#instancesV2;
  }
  get zones(): Zones | undefined {
    return this.disableZones ? undefined : this.#zones;
  }
  get loadBalancer(): LoadBalancer | undefined {
    return this.disableLoadBalancers ? undefined : this.#loadBalancer;
  }
  get routes(): Routes | undefined {
    return this.disableRoutes ? undefined : this.#routes;
  }
  get clusters(): Clusters | undefined {
    return this.disableClusters ? undefined : this.#clusters;
  }
  get cidrAllocator(): CidrAllocator | undefined {
    return this.podCIDRsByProviderID ? this.#cidrAllocator : undefined;
  }

  async #record(name: string, args: unknown[]): Promise<void> {
    if (this.requestDelayMs > 0) await Bun.sleep(this.requestDelayMs);
    this.calls.push({ name, args });
  }

  async #call<K extends keyof FakeMethods, R>(
    method: K,
    recordAs: string | undefined,
    args: unknown[],
    fallback: () => R | Promise<R>,
  ): Promise<R> {
    const fn = this.#overrides[method] as ((...a: unknown[]) => R | Promise<R>) | undefined;
    if (recordAs !== undefined) await this.#record(recordAs, args);
    return fn ? fn(...args) : fallback();
  }

  #throwIf(err: Error | undefined): void {
    if (err) throw err;
  }

  #status(service: Service): LoadBalancerStatus {
    const ip = this.externalIP || "<nil>";
    return {
      ingress: [
        {
          ip,
          ...(this.balancerIPMode ? { ipMode: this.balancerIPMode } : {}),
          ports: (service.spec?.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol ?? "TCP" })),
        },
      ],
    };
  }

  readonly #loadBalancer = {
    getLoadBalancer: (ctx: CallContext, clusterName: string, service: Service) =>
      this.#call("getLoadBalancer", undefined, [ctx, clusterName, service], () => {
        this.#throwIf(this.err);
        return this.exists ? { ingress: [{ ip: this.externalIP || "<nil>" }] } : undefined;
      }),
    getLoadBalancerName: (_ctx: CallContext, _clusterName: string, service: Service) =>
      defaultLoadBalancerName(service),
    ensureLoadBalancer: (ctx: CallContext, clusterName: string, service: Service, nodes: readonly Node[]) =>
      this.#call("ensureLoadBalancer", "create", [ctx, clusterName, service, nodes], async () => {
        this.ensureCalls.push({ service, hosts: nodes });
        const name = defaultLoadBalancerName(service);
        const zone = await this.#zones.getZone(ctx);
        this.balancers.set(name, {
          name,
          region: zone.region,
          loadBalancerIP: service.spec?.loadBalancerIP ?? "",
          ports: (service.spec?.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol ?? "TCP" })),
          hosts: nodes.map((n) => n.metadata?.name ?? ""),
        });
        this.#throwIf(this.err);
        return this.#status(service);
      }),
    updateLoadBalancer: (ctx: CallContext, clusterName: string, service: Service, nodes: readonly Node[]) =>
      this.#call("updateLoadBalancer", "update", [ctx, clusterName, service, nodes], () => {
        this.updateCalls.push({ service, hosts: nodes });
        this.#throwIf(this.err);
      }),
    ensureLoadBalancerDeleted: (ctx: CallContext, clusterName: string, service: Service) =>
      this.#call("ensureLoadBalancerDeleted", "delete", [ctx, clusterName, service], () => {
        this.#throwIf(this.err);
        this.balancers.delete(defaultLoadBalancerName(service));
      }),
  } satisfies LoadBalancer;

  readonly #instances = {
    nodeAddresses: (ctx: CallContext, nodeName: string) =>
      this.#call("nodeAddresses", "node-addresses", [ctx, nodeName], () => {
        this.#throwIf(this.err);
        return [...this.addresses];
      }),
    nodeAddressesByProviderID: (ctx: CallContext, providerID: string) =>
      this.#call("nodeAddressesByProviderID", "node-addresses-by-provider-id", [ctx, providerID], () => {
        this.#throwIf(this.err);
        return [...this.addresses];
      }),
    instanceID: (ctx: CallContext, nodeName: string) =>
      this.#call("instanceID", "instance-id", [ctx, nodeName], () => {
        this.#throwIf(this.extIDErr[nodeName]);
        return this.extID[nodeName] ?? "";
      }),
    instanceType: (ctx: CallContext, nodeName: string) =>
      this.#call("instanceType", "instance-type", [ctx, nodeName], () => {
        this.#throwIf(this.err);
        return this.instanceTypes[nodeName] ?? "";
      }),
    instanceTypeByProviderID: (ctx: CallContext, providerID: string) =>
      this.#call("instanceTypeByProviderID", "instance-type-by-provider-id", [ctx, providerID], () => {
        this.#throwIf(this.err);
        return this.instanceTypes[providerID] ?? "";
      }),
    instanceExistsByProviderID: (ctx: CallContext, providerID: string) =>
      this.#call("instanceExistsByProviderID", "instance-exists-by-provider-id", [ctx, providerID], () => {
        this.#throwIf(this.errByProviderID);
        return this.existsByProviderID;
      }),
    instanceShutdownByProviderID: (ctx: CallContext, providerID: string) =>
      this.#call("instanceShutdownByProviderID", "instance-shutdown-by-provider-id", [ctx, providerID], () => {
        if (providerID === "") throw new Error("cannot shutdown instance with empty providerID");
        this.#throwIf(this.errShutdownByProviderID);
        return this.nodeShutdown;
      }),
  } satisfies Instances;

  #metadata(node: Node): InstanceMetadata {
    this.#throwIf(this.metadataErr);
    return {
      providerID: this.providerID[node.metadata?.name ?? ""] ?? "",
      instanceType: this.instanceTypes[node.spec?.providerID ?? ""] ?? "",
      nodeAddresses: [...this.addresses],
      zone: this.zone.failureDomain,
      region: this.zone.region,
      ...(this.additionalLabels ? { additionalLabels: this.additionalLabels } : {}),
    };
  }

  readonly #instancesV2 = {
    instanceExists: (ctx: CallContext, node: Node) =>
      this.#call("instanceExists", "instance-exists", [ctx, node], () => {
        this.#throwIf(this.errByProviderID);
        return this.existsByProviderID;
      }),
    instanceShutdown: (ctx: CallContext, node: Node) =>
      this.#call("instanceShutdown", "instance-shutdown", [ctx, node], () => {
        this.#throwIf(this.errShutdownByProviderID);
        return this.nodeShutdown;
      }),
    instanceMetadata: (ctx: CallContext, node: Node) => {
      const recordAs = this.#overrides.instanceMetadata ? undefined : "instance-metadata-by-provider-id";
      return this.#call("instanceMetadata", recordAs, [ctx, node], (): InstanceMetadata | null => this.#metadata(node));
    },
  } satisfies InstancesV2;

  readonly #instancesV2Bulk = {
    ...this.#instancesV2,
    instanceMetadataBulk: (ctx: CallContext, nodes: readonly Node[]) =>
      this.#call("instanceMetadataBulk", "instance-metadata-bulk", [ctx, nodes], () => {
        this.#throwIf(this.metadataErr);
        const out = new Map<string, BulkInstanceInfo | null>();
        for (const node of nodes) {
          const info = this.existsByProviderID ? { metadata: this.#metadata(node), shutdown: this.nodeShutdown } : null;
          out.set(node.metadata?.name ?? "", info);
        }
        return out;
      }),
  } satisfies InstancesV2;

  readonly #zones = {
    getZone: (ctx: CallContext) =>
      this.#call("getZone", "get-zone", [ctx], () => {
        this.#throwIf(this.err);
        return this.zone;
      }),
    getZoneByProviderID: (ctx: CallContext, providerID: string) =>
      this.#call("getZoneByProviderID", "get-zone-by-provider-id", [ctx, providerID], () => {
        this.#throwIf(this.err);
        return this.zone;
      }),
    getZoneByNodeName: (ctx: CallContext, nodeName: string) =>
      this.#call("getZoneByNodeName", "get-zone-by-node-name", [ctx, nodeName], () => {
        this.#throwIf(this.err);
        return this.zone;
      }),
  } satisfies Zones;

  readonly #routes = {
    listRoutes: (ctx: CallContext, clusterName: string) =>
      this.#call("listRoutes", "list-routes", [ctx, clusterName], () => {
        this.#throwIf(this.err);
        return [...this.routeMap.values()].filter((r) => r.clusterName === clusterName).map((r) => ({ ...r.route }));
      }),
    createRoute: (ctx: CallContext, clusterName: string, nameHint: string, route: Route) =>
      this.#call("createRoute", "create-route", [ctx, clusterName, nameHint, route], () => {
        this.#throwIf(this.err);
        const name = `${clusterName}-${route.targetNode}-${route.destinationCIDR}`;
        if (this.routeMap.has(name)) {
          this.err = new Error(`route "${name}" already exists`);
          throw this.err;
        }
        this.routeMap.set(name, { clusterName, route: { ...route, name } });
      }),
    deleteRoute: (ctx: CallContext, clusterName: string, route: Route) =>
      this.#call("deleteRoute", "delete-route", [ctx, clusterName, route], () => {
        this.#throwIf(this.err);
        for (const [name, entry] of this.routeMap) {
          const r = entry.route;
          if (
            entry.clusterName === clusterName &&
            r.destinationCIDR === route.destinationCIDR &&
            r.targetNode === route.targetNode
          ) {
            this.routeMap.delete(name);
            return;
          }
        }
        this.err = new Error(
          `no route found for node:${route.targetNode} with DestinationCIDR== ${route.destinationCIDR}`,
        );
        throw this.err;
      }),
  } satisfies Routes;

  readonly #clusters = {
    listClusters: (ctx: CallContext) =>
      this.#call("listClusters", "list", [ctx], () => {
        this.#throwIf(this.err);
        return [...this.clusterList];
      }),
    master: (ctx: CallContext, clusterName: string) =>
      this.#call("master", undefined, [ctx, clusterName], () => {
        this.#throwIf(this.err);
        return this.masterName;
      }),
  } satisfies Clusters;

  readonly #cidrAllocator = {
    podCIDRs: (ctx: CallContext, node: Node) =>
      this.#call("podCIDRs", "pod-cidrs", [ctx, node], () => {
        this.#throwIf(this.err);
        const providerID = node.spec?.providerID ?? "";
        const cidrs = this.podCIDRsByProviderID?.[providerID];
        if (!cidrs) throw new InstanceNotFoundError(`fake: no instance ${providerID}`);
        return [...cidrs];
      }),
  } satisfies CidrAllocator;
}
