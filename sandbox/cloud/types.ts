/**
 * The simulated cloud's resources, exactly as its REST API sends and receives them (see docs/sandbox.md).
 *
 * These types belong to the simulated cloud. The `sandbox` provider deliberately does not import them: like a
 * provider for a real cloud, it declares the narrow shapes it needs in its own `api/` folder.
 */

export type AddressType = "InternalIP" | "ExternalIP" | "Hostname";

export interface MachineAddress {
  type: AddressType;
  address: string;
}

/** A stopped machine still exists (its node must not be deleted); it is merely shut down. */
export type MachineState = "running" | "stopped";

export interface Machine {
  /** Chosen by the cloud at creation; never reused while the cloud runs. */
  id: string;
  /** Unique among machines; the node name the sandbox gives the machine's Kubernetes Node. */
  name: string;
  /** `sandbox://<id>`. */
  providerID: string;
  zone: string;
  region: string;
  instanceType: string;
  addresses: MachineAddress[];
  state: MachineState;
  /**
   * Extra labels the cloud reports for the machine (a provider's `additionalLabels`), as given: the framework, not
   * the cloud, drops the `kubernetes.io/` and `k8s.io/` ones and keeps a node's own value.
   */
  labels: Record<string, string>;
  /** The cloud cannot tell the machine's metadata yet (a provider's `null` answer), as while it is provisioned. */
  metadataPending: boolean;
  /** The cloud's metadata for the machine carries no provider ID (the node's own, if it has one, is kept). */
  providerIDHidden: boolean;
  /**
   * Pod ranges the cloud routes to the machine itself (as a cloud's alias IP ranges), at most one per IP family: what
   * the `CloudAllocator` node IPAM type gives the machine's Node. Empty: none assigned.
   */
  podCIDRs: string[];
}

/** What a create accepts; every field but `name` has a default (docs/sandbox.md lists them). */
export interface MachineSpec {
  name: string;
  zone?: string;
  region?: string;
  instanceType?: string;
  addresses?: MachineAddress[];
  state?: MachineState;
  labels?: Record<string, string>;
  metadataPending?: boolean;
  providerIDHidden?: boolean;
  podCIDRs?: string[];
}

/** What a PATCH accepts: only the fields given change. */
export type MachinePatch = Partial<MachineSpec>;

export type Protocol = "TCP" | "UDP" | "SCTP";

export interface LoadBalancerPort {
  name: string;
  protocol: Protocol;
  port: number;
  /** 0 when the Service has no node port (allocateLoadBalancerNodePorts: false). */
  nodePort: number;
}

/** How a load balancer spreads connections over its nodes. */
export type Algorithm = "round-robin" | "least-connections" | "source-ip";

/** What a port speaks: plain TCP (or UDP/SCTP, which are always passed through), or HTTP/HTTPS for a TCP port. */
export type PortProtocol = "tcp" | "http" | "https";

export interface LoadBalancerOptions {
  algorithm: Algorithm;
  /** Backends are checked every `intervalMs` (1s to 5m) and taken out after `retries` (1-10) failed checks. */
  healthCheck: { intervalMs: number; retries: number };
  /** The PROXY protocol header is sent to the backends (the Service then reports ipMode Proxy). */
  proxyProtocol: boolean;
  /** Source CIDRs allowed to connect; empty ⇒ everyone. */
  allowedCIDRs: string[];
  /** The protocol of a port, by port number; a port not listed is `tcp`. */
  portProtocols: Record<string, PortProtocol>;
}

export interface LoadBalancer {
  name: string;
  cluster: string;
  serviceUID: string;
  serviceNamespace: string;
  serviceName: string;
  ports: LoadBalancerPort[];
  /** Backend node names, sorted and without duplicates. */
  nodes: string[];
  options: LoadBalancerOptions;
  /** Allocated from the cloud's address pool when the load balancer is created; kept until it is deleted. */
  address: string;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339; changes only when a write changes something. */
  updatedAt: string;
}

/** The body of `PUT /v1/load-balancers/{name}`: `options` and each of its fields may be left out (defaults). */
export type LoadBalancerSpec = Omit<LoadBalancer, "name" | "address" | "createdAt" | "updatedAt" | "options"> & {
  options?: Partial<Omit<LoadBalancerOptions, "healthCheck">> & {
    healthCheck?: Partial<LoadBalancerOptions["healthCheck"]>;
  };
};

/** The body of `PATCH /v1/load-balancers/{name}`. */
export interface LoadBalancerPatch {
  nodes?: string[];
  ports?: LoadBalancerPort[];
}

export interface Route {
  name: string;
  cluster: string;
  targetNode: string;
  destinationCIDR: string;
  /** What the creator passed as a hint (the node UID); informational. */
  nameHint: string;
  /**
   * The target node's addresses when the route was created, kept only while the cloud's `routeNodeAddresses`
   * setting is on (absent otherwise); a provider then reports them, and the framework replaces the route when
   * the node's addresses change.
   */
  targetNodeAddresses?: { type: string; address: string }[];
}

/** Cloud-wide behaviour, changed through `/v1/settings`. */
export interface CloudSettings {
  /** Routes keep the target node addresses they are created with (see `Route.targetNodeAddresses`). */
  routeNodeAddresses: boolean;
}

export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  /** The next page's number, or null on the last page. */
  nextPage: number | null;
}

export interface MachinePage {
  machines: Machine[];
  pagination: Pagination;
}

/** One rule of `failNext`: the next `count` calls that match answer `status`. */
export interface FailRule {
  /** HTTP method to match, upper case; absent ⇒ any method. */
  method?: string;
  /** Matches calls whose path starts with this (e.g. `/v1/machines`). */
  pathPrefix: string;
  status: number;
  count: number;
  /** Sent as `Retry-After` (seconds); defaults to 1 for status 429, absent otherwise. */
  retryAfterSeconds?: number;
}

export interface FaultConfig {
  /** Added before every faultable call is answered. */
  latencyMs: number;
  /** Fraction (0..1) of faultable calls answered 500, drawn from the cloud's seeded random source. */
  errorRate: number;
  /** A token bucket over faultable calls; null ⇒ unlimited. Calls beyond it get 429 with `Retry-After`. */
  rateLimit: { qps: number; burst: number } | null;
  failNext: FailRule[];
}

/** Counters of the calls the cloud received, keyed `METHOD /route/pattern` (e.g. `GET /v1/machines/:id`). */
export interface CallStats {
  total: number;
  /** Calls answered with status 400 or above. */
  failed: number;
  byRoute: Record<string, { calls: number; failed: number }>;
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { code: string; message: string };
}
