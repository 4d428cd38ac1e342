/**
 * The provider contract: what a cloud implements so that the shared controllers can run on it.
 *
 * This is the TypeScript form of upstream's `cloudprovider.Interface`. Where Go returns `(X, implemented bool)`,
 * a provider here sets the optional property or leaves it `undefined`; the property is the authority. A missing
 * capability turns the controllers that need it off (with one log line saying why); it is never an error.
 *
 * General rules for every method:
 * - Arguments (nodes, services) are read-only. Copy before changing anything.
 * - Every method may be called concurrently, for different objects and for the same one.
 * - Errors are thrown (or the promise rejects). Use the classes in `./errors.ts` where a contract names one;
 *   the framework tells them apart by class (`InstanceNotFoundError`, `NotImplementedError`,
 *   `ImplementedElsewhereError`) or through the `cause` chain (`RetryError`). Any other error is a transient
 *   failure: the controller retries with back-off and logs it once.
 * - `signal` aborts when the controller stops; long calls should honour it.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { KubeClient } from "../kube/client-types.ts";
import type { Informer } from "../kube/informer.ts";
import type { ConfigMap, LoadBalancerStatus, Node, NodeAddress, Secret, Service } from "../kube/objects.ts";
import type { FieldPath } from "../kube/trim.ts";
import type { WriteFence } from "../kube/write-fence.ts";
import type { AdmissionWebhook } from "./admission.ts";

/** What every call receives besides its own arguments. */
export interface CallContext {
  readonly signal: AbortSignal;
  /**
   * The leadership term's write fence (kube/write-fence.ts): ask `enter` synchronously right before each request
   * that changes the cloud, and send it with the returned signal. The cloud-API kit does both. Absent outside a
   * term (`doctor`, tests).
   */
  readonly fence?: WriteFence | undefined;
}

/** The cloud provider: a name, a few switches, and optional capabilities. */
export interface CloudProvider {
  /**
   * The provider's name, e.g. `hcloud`. It is also the scheme of provider IDs built by the framework's
   * legacy path (`<providerName>://<instanceID>`). Must equal the name it is registered under.
   */
  readonly providerName: string;

  /**
   * True when the provider needs a cluster ID and has one. When false the command refuses to start unless
   * `--allow-untagged-cloud` is given (then it warns). Providers without the notion return true.
   */
  hasClusterID(): boolean;

  /**
   * Called once, right before the controllers start, inside leadership. The provider may start background work
   * and must stop it when `ctx.signal` aborts. Optional.
   */
  initialize?(ctx: ProviderRuntime): void | Promise<void>;

  /** Node metadata for initialisation and the lifecycle controller. Preferred over `instances` and `zones`. */
  readonly instancesV2?: InstancesV2 | undefined;
  /** Legacy per-instance API; used only when `instancesV2` is absent. */
  readonly instances?: Instances | undefined;
  /** Deprecated zone API; used only with `instances`, never when `instancesV2` is present. */
  readonly zones?: Zones | undefined;
  /** Load balancers for `type: LoadBalancer` Services; absent ⇒ the service controller does not run. */
  readonly loadBalancer?: LoadBalancer | undefined;
  /** Routes for pod CIDRs; absent ⇒ the route controller does not run. */
  readonly routes?: Routes | undefined;
  /**
   * Pod CIDRs the cloud assigns to each node; used by the node IPAM controller with
   * `--cidr-allocator-type=CloudAllocator`. Absent ⇒ that allocator type refuses to start (the range allocator needs
   * nothing from the provider).
   */
  readonly cidrAllocator?: CidrAllocator | undefined;
  /** Cluster listing; no controller uses it. */
  readonly clusters?: Clusters | undefined;
  /**
   * Loops of the provider's own that act on the cluster's objects (DO CCM's public-access firewall follows the
   * Services' node ports). The manager runs each inside every leadership term, after the shared controllers
   * started (under leader migration, in the term of the lock that runs the service controller); `plan` and
   * `doctor` never run them. Optional.
   */
  readonly controllers?: readonly ProviderController[] | undefined;
  /**
   * Admission webhooks by name, served at `/<name>` on `--webhook-secure-port` when the `CloudControllerManagerWebhook`
   * gate is on and `--webhooks` selects them (providers/admission.ts states a handler's contract). A name is
   * lower-case letters, digits and inner dashes. Declared in `defineProvider`'s `webhooks`; absent ⇒ none.
   */
  readonly webhooks?: Readonly<Record<string, AdmissionWebhook>> | undefined;

  /**
   * A cheap read that proves the configuration and credentials work (e.g. list one machine). Used by the
   * `doctor` command; throws an error whose message says what is wrong. Optional.
   */
  verifyAccess?(ctx: CallContext): Promise<void>;

  /**
   * The rate the provider's API tolerates, for the framework to size its parallelism (e.g. how many node joins
   * may run at once). Absent ⇒ the framework's defaults apply.
   */
  readonly rateLimit?: RateLimit | undefined;
}

/** A token bucket: `qps` sustained calls per second with bursts of `burst`. */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

/** What `initialize` receives. */
export interface ProviderRuntime {
  /** Aborts when the manager stops or loses leadership. */
  readonly signal: AbortSignal;
  /** Tagged with the provider name. Never log a secret. */
  readonly logger: ConsolaInstance;
  /**
   * The manager's Kubernetes client, for providers that keep state in the cluster (a watched ConfigMap,
   * allocations recorded on Services). Mind RBAC: a provider that reads more than the controllers do must
   * document the extra rules it needs.
   */
  readonly kube: KubeClient;
  /**
   * The manager's metrics registry, served at `/metrics`: the same one the factory received as
   * `ProviderFactoryInput.metrics`. Register provider-specific metrics here (names `cloudprovider_<provider>_…`).
   */
  readonly metrics: Registry;
  /**
   * Shared caches of the cluster (upstream's `InformerUser`): ask for them instead of opening watches of your own.
   * The Node and Service caches are the ones the controllers read, so they cost no extra list or watch.
   */
  readonly informers: ProviderInformers;
}

/**
 * A provider's own controller. `run` works until `ctx.signal` aborts and then resolves once it has stopped; a
 * rejection is fatal to the term, like a shared controller's crash, so it handles its cloud failures itself
 * (retry, back off, log once).
 */
export interface ProviderController {
  /** For its log lines: `public-access-firewall`. */
  readonly name: string;
  run(ctx: ProviderControllerContext): Promise<void>;
}

/** What a provider controller receives: the term's runtime, and its write fence for every call that changes the cloud. */
export interface ProviderControllerContext extends ProviderRuntime {
  readonly fence?: WriteFence | undefined;
}

/** What a provider may read from an informer: the cache and its events, never its lifecycle. */
export type SharedInformer<T extends Node | Service | ConfigMap | Secret> = Pick<
  Informer<T>,
  "hasSynced" | "whenSynced" | "get" | "list" | "keys" | "addEventHandler"
>;

/**
 * The shared informers a provider may use. Each selection is listed and watched once per process, however many
 * callers ask; the manager runs them until the leadership term ends. Keys are `namespace/name`.
 */
export interface ProviderInformers {
  /**
   * Every Node (needs the controllers' own `list`/`watch` on nodes: no extra RBAC). The cache keeps the fields the
   * controllers read (kube/trim.ts `NODE_FIELDS`); a provider that reads more names them in `keep`, in
   * `initialize` (a request after the informer started without them throws).
   */
  nodes(options?: { readonly keep?: readonly FieldPath<Node>[] }): SharedInformer<Node>;
  /** Every Service (no extra RBAC); `keep` as for `nodes` (kube/trim.ts `SERVICE_FIELDS`). */
  services(options?: { readonly keep?: readonly FieldPath<Service>[] }): SharedInformer<Service>;
  /**
   * ConfigMaps of one namespace, or the one named `name` there (a field selector). Needs `list` and `watch` on
   * configmaps in that namespace: document the rule in the provider's deployment files.
   */
  configMaps(selection: { readonly namespace: string; readonly name?: string }): SharedInformer<ConfigMap>;
  /** Secrets of one namespace, or the one named `name` there. Needs `list` and `watch` on secrets there. */
  secrets(selection: { readonly namespace: string; readonly name?: string }): SharedInformer<Secret>;
}

/** Upstream `InstanceMetadata`: everything the node controller writes onto a new Node. */
export interface InstanceMetadata {
  /**
   * Written to `spec.providerID` only when the node has none. Must be stable for the instance's lifetime.
   * May be empty only when the node already has a provider ID (otherwise initialisation fails and retries).
   */
  readonly providerID: string;
  /** Labels `node.kubernetes.io/instance-type` and `beta.kubernetes.io/instance-type`; empty ⇒ not set. */
  readonly instanceType: string;
  /** `status.addresses`. Empty ⇒ addresses are left as they are (never cleared). */
  readonly nodeAddresses: readonly NodeAddress[];
  /** Labels `topology.kubernetes.io/zone` and the deprecated failure-domain one; empty ⇒ not set. */
  readonly zone: string;
  /** Labels `topology.kubernetes.io/region` and the deprecated failure-domain one; empty ⇒ not set. */
  readonly region: string;
  /**
   * Extra labels. Keys under `kubernetes.io/` or `k8s.io/` (or their subdomains) are dropped; a key the node
   * already has keeps the node's value.
   */
  readonly additionalLabels?: Readonly<Record<string, string>>;
}

/** Upstream `InstancesV2`. Each method may find the instance by `spec.providerID` first, then by name. */
export interface InstancesV2 {
  /**
   * Does the node's instance exist? Must be true for stopped or sleeping instances.
   * **false deletes the Node object** (the lifecycle controller asks only for NotReady nodes).
   */
  instanceExists(ctx: CallContext, node: Node): Promise<boolean>;
  /** Is the node's instance shut down (exists, not running)? Adds or keeps the shutdown taint. */
  instanceShutdown(ctx: CallContext, node: Node): Promise<boolean>;
  /**
   * Metadata to initialise the node. `null` (no error) means "cannot tell yet": the node stays uninitialised,
   * is not retried by back-off, and gets a Warning event saying so. Throw `InstanceNotFoundError` when no
   * instance matches; the node then stays tainted and retries.
   */
  instanceMetadata(ctx: CallContext, node: Node): Promise<InstanceMetadata | null>;
  /**
   * Optional bulk form, beyond upstream: metadata for many nodes in few cloud calls (one listing, paged).
   * The result maps node name → metadata, or `null` where the node's instance was not found. Nodes missing
   * from the map are looked up one by one with `instanceMetadata`. Used by the periodic address refresh and
   * the lifecycle monitor; also answers existence (`null` = gone) and shutdown (`shutdown` true).
   */
  instanceMetadataBulk?(ctx: CallContext, nodes: readonly Node[]): Promise<Map<string, BulkInstanceInfo | null>>;
}

/** One entry of `instanceMetadataBulk`: the metadata plus the instance's power state. */
export interface BulkInstanceInfo {
  readonly metadata: InstanceMetadata;
  readonly shutdown: boolean;
}

/** Upstream `Instances` (legacy). Prefer `InstancesV2` in new providers. */
export interface Instances {
  /** Addresses of the instance serving this node name. */
  nodeAddresses(ctx: CallContext, nodeName: string): Promise<NodeAddress[]>;
  /** Addresses by provider ID. Called even with an empty provider ID (then fail, and the name is tried). */
  nodeAddressesByProviderID(ctx: CallContext, providerID: string): Promise<NodeAddress[]>;
  /**
   * The instance ID (no scheme) for a node name. Throw `InstanceNotFoundError` when there is no such instance
   * (not for stopped ones), `NotImplementedError` when the cloud has no instance IDs. The framework builds the
   * provider ID as `<providerName>://<id>`.
   */
  instanceID(ctx: CallContext, nodeName: string): Promise<string>;
  instanceType(ctx: CallContext, nodeName: string): Promise<string>;
  instanceTypeByProviderID(ctx: CallContext, providerID: string): Promise<string>;
  /** False (no error) **deletes the Node object**. Must be true for stopped or sleeping instances. */
  instanceExistsByProviderID(ctx: CallContext, providerID: string): Promise<boolean>;
  /** True when shut down. `NotImplementedError` is read as "not shut down". */
  instanceShutdownByProviderID(ctx: CallContext, providerID: string): Promise<boolean>;
  /** Unused by the controllers; kept for interface parity. */
  addSSHKeyToAllInstances?(ctx: CallContext, user: string, keyData: Uint8Array): Promise<void>;
  /** Unused by the controllers; kept for interface parity. */
  currentNodeName?(ctx: CallContext, hostname: string): Promise<string>;
}

/** Upstream `Zone`. */
export interface Zone {
  readonly failureDomain: string;
  readonly region: string;
}

/** Upstream `Zones` (deprecated). Never consulted when `instancesV2` is present. */
export interface Zones {
  /** Zone of the machine running this code: not meaningful for an external CCM. */
  getZone(ctx: CallContext): Promise<Zone>;
  getZoneByProviderID(ctx: CallContext, providerID: string): Promise<Zone>;
  getZoneByNodeName(ctx: CallContext, nodeName: string): Promise<Zone>;
}

/**
 * Upstream `LoadBalancer`. `clusterName` is `--cluster-name` (default `kubernetes`). A provider decides the
 * cloud name of a Service's load balancer, usually from `getLoadBalancerName` (see `defaultLoadBalancerName`).
 */
export interface LoadBalancer {
  /**
   * Which `spec.loadBalancerClass` values this provider serves. Absent ⇒ upstream's behaviour: Services without a
   * class are served, every Service with a class is left alone (another implementation owns it).
   */
  readonly classes?: LoadBalancerClasses | undefined;
  /**
   * The load balancer for this Service and its status, or `undefined` when none exists. When the provider
   * delegates this kind of load balancer elsewhere, report one only if the service controller created it.
   */
  getLoadBalancer(ctx: CallContext, clusterName: string, service: Service): Promise<LoadBalancerStatus | undefined>;
  /** The cloud name of this Service's load balancer. Must be stable for the Service's lifetime. */
  getLoadBalancerName(ctx: CallContext, clusterName: string, service: Service): string;
  /**
   * Create or update the load balancer so it serves the Service's ports on `nodes`; return its status.
   * Must be idempotent. May throw `ImplementedElsewhereError` (another controller owns it; nothing more is done)
   * or a `RetryError` (possibly wrapped) to be called again after a fixed delay.
   */
  ensureLoadBalancer(
    ctx: CallContext,
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
  ): Promise<LoadBalancerStatus>;
  /** Change only the backend hosts to `nodes`. May throw `ImplementedElsewhereError`. */
  updateLoadBalancer(ctx: CallContext, clusterName: string, service: Service, nodes: readonly Node[]): Promise<void>;
  /**
   * Delete the load balancer if it exists; succeed when it does not. Should not throw
   * `ImplementedElsewhereError` (the finalizer path tolerates it; the cache path treats it as a failure).
   */
  ensureLoadBalancerDeleted(ctx: CallContext, clusterName: string, service: Service): Promise<void>;
  /**
   * What `ensureLoadBalancer` would do for this Service and `nodes`, found with reads only: it must make no call
   * that changes the cloud (no create, update, label, certificate or event), whatever it finds. Used by the `plan`
   * command to show an operator every write before a manager makes one. Optional: without it, `plan` says it
   * cannot preview the cloud side of each LoadBalancer Service. Throws as `ensureLoadBalancer` would for a Service
   * it cannot serve (invalid annotations, a name owned by another Service).
   */
  planLoadBalancer?(
    ctx: CallContext,
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
  ): Promise<LoadBalancerPlan>;
}

/** What `ensureLoadBalancer` would do, as `LoadBalancer.planLoadBalancer` finds it. */
export interface LoadBalancerPlan {
  /**
   * `create`: no load balancer is found, one would be made (its addresses are the cloud's to choose). `adopt`: one
   * made elsewhere (by another manager) is found and would be taken over as it is: same ID, same addresses, with
   * `changes` to make it this Service's. `update`: this Service's own one would be changed as `changes` say.
   * `none`: it already is as the Service wants it.
   */
  readonly action: "create" | "adopt" | "update" | "none";
  /** The cloud's name of the load balancer, as found or as it would be created. */
  readonly name: string;
  /** Every change `ensureLoadBalancer` would make, one short phrase each (`add target server 42`); empty for `none`. */
  readonly changes: readonly string[];
  /**
   * The status `ensureLoadBalancer` would return, when it is known before the call (an existing load balancer keeps
   * its addresses); `undefined` for `create`.
   */
  readonly status?: LoadBalancerStatus | undefined;
}

/**
 * The `spec.loadBalancerClass` values a provider serves. A Service whose class is in `names` is handled; a Service
 * with any other class is left alone (never touched, never cleaned up); a Service without a class is handled only
 * when `classless` is true. This lets a provider run beside MetalLB, Cilium or another manager on one cluster.
 */
export interface LoadBalancerClasses {
  /** Class names served, e.g. `metal.ccm.dev/pool`. May be empty (then only class-less Services, if any). */
  readonly names: readonly string[];
  /** Serve Services that set no class (Kubernetes' default load balancer). */
  readonly classless: boolean;
}

/** Upstream `Route`. */
export interface Route {
  /** The cloud's name for the route. Ignored on create (the provider names it, e.g. from the name hint). */
  readonly name: string;
  /** Node the traffic goes to; empty for routes the cloud cannot attribute. */
  readonly targetNode: string;
  /**
   * The provider's opt-in: when false, `targetNodeAddresses` is ignored when comparing, which avoids
   * delete/re-create loops with clouds that do not report addresses.
   */
  readonly enableNodeAddresses?: boolean;
  /** The node addresses the route was created for. */
  readonly targetNodeAddresses?: readonly NodeAddress[];
  /** The pod CIDR the route covers. */
  readonly destinationCIDR: string;
  /** A blackhole route; the route controller deletes those inside the cluster CIDRs. */
  readonly blackhole?: boolean;
}

/** Upstream `Routes`. */
export interface Routes {
  /** Every route managed for this cluster. */
  listRoutes(ctx: CallContext, clusterName: string): Promise<Route[]>;
  /**
   * Create a route. `nameHint` is the node's UID; a node with two pod CIDRs (dual stack) gets two routes with the
   * same hint, so the provider must derive distinct names (e.g. hint plus CIDR). Throw a `RetryError` when the
   * route cannot be made *yet* (the node has not reported what the cloud needs): the route controller then says so
   * at info level, records no Warning event, leaves the node NetworkUnavailable and tries again on its next pass.
   */
  createRoute(ctx: CallContext, clusterName: string, nameHint: string, route: Route): Promise<void>;
  /** Delete a route as returned by `listRoutes`. */
  deleteRoute(ctx: CallContext, clusterName: string, route: Route): Promise<void>;
}

/**
 * Upstream's `CloudAllocator` node IPAM type: the cloud, not `--cluster-cidr`, decides each node's pod ranges (a
 * cloud that routes a range to each instance, as alias IP ranges). The node IPAM controller asks once for every Node
 * that has a provider ID and no `spec.podCIDRs`, and writes the answer there; a Node's pod CIDRs never change once
 * set, so the cloud must not move a range while its node exists.
 */
export interface CidrAllocator {
  /**
   * The pod CIDRs the cloud assigned to `node`'s instance, found by its `spec.providerID` (always set when called):
   * CIDR strings (`10.244.3.0/24`, `fd00:10:244:3::/64`), at most one per IP family, the cluster's primary family
   * first (it becomes `spec.podCIDR`). Empty when the cloud has assigned none yet: the node gets a
   * `CIDRNotAvailable` event and is asked again with back-off. Throw `InstanceNotFoundError` when the instance does
   * not exist, `RetryError` to be asked again after a given time. Only reads the cloud.
   */
  podCIDRs(ctx: CallContext, node: Node): Promise<readonly string[]>;
}

/** Upstream `Clusters`; no controller uses it. */
export interface Clusters {
  listClusters(ctx: CallContext): Promise<string[]>;
  /** Address of the named cluster's control plane. */
  master(ctx: CallContext, clusterName: string): Promise<string>;
}

/**
 * What a provider factory receives (a `defineProvider` declaration reads it for the provider): the raw cloud-config (the file's content, or `undefined` when
 * `--cloud-config` was not given) and the process environment (for credentials such as tokens).
 */
export interface ProviderFactoryInput {
  readonly config: string | undefined;
  /** Where `config` came from, for error messages (`--cloud-config=/etc/x.yaml`), or undefined. */
  readonly configSource: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The manager's metrics registry, served at `/metrics` (the same as `ProviderRuntime.metrics`), for clients built
   * in the factory: the cloud-API kit records its per-call metrics here. Absent where nothing serves metrics (unit
   * tests, `doctor`); the kit then records into a registry of its own.
   */
  readonly metrics?: Registry | undefined;
  /**
   * The manager's logger, untagged (`defineProvider` tags it with the provider's name), so a provider logs from
   * construction on instead of waiting for `initialize`. Absent where nothing prints (unit tests, `doctor`).
   */
  readonly logger?: ConsolaInstance | undefined;
  /** The manager's clock; absent ⇒ `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Reads the files settings name (secrets, CA bundles); absent ⇒ the disk. */
  readonly readFile?: ((path: string) => Promise<string>) | undefined;
  /**
   * `--cloud-api-max-answer-mib` in bytes: the most the provider's cloud-API clients read of one answer (the kit's
   * `maxAnswerBytes`); absent ⇒ the kit's default.
   */
  readonly maxAnswerBytes?: number | undefined;
}

/**
 * Builds a provider. Validates the cloud-config with the provider's own valibot schema and throws a
 * `ConfigError` listing every problem at once. Must accept `config === undefined` (either by using defaults or
 * by a `ConfigError` that says `--cloud-config` is required).
 */
export type ProviderFactory = (input: ProviderFactoryInput) => CloudProvider | Promise<CloudProvider>;

/**
 * Upstream `DefaultLoadBalancerName`: `a` + the Service UID without dashes, cut to 32 characters.
 * Kept for providers whose load balancers predate per-provider naming.
 */
export function defaultLoadBalancerName(service: Pick<Service, "metadata">): string {
  return `a${service.metadata?.uid ?? ""}`.replaceAll("-", "").slice(0, 32);
}
