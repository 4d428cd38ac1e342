/**
 * The cloud calls the sandbox provider makes, behind an interface the provider defines: only what the provider
 * uses, in the provider's terms. `http.ts` implements it over the simulated cloud's REST API (docs/sandbox.md).
 *
 * Error contract, shared by every implementation:
 * - "not found" is an answer, not an error: `get*` resolve to `undefined` and `delete*` to `false`.
 * - The cloud asking to slow down throws a `RetryError` (from providers/errors.ts) carrying its Retry-After.
 * - Anything else throws an `Error` whose message starts with `sandbox/api.<method>: `; when the cloud answered at
 *   all, its `cause` chain holds the cloud-API kit's `CloudApiError` (providers/kit/http/errors.ts) with the status
 *   and the cloud's error code.
 */
import type { CallContext } from "../../cloud.ts";

export interface SandboxAddress {
  readonly type: "InternalIP" | "ExternalIP" | "Hostname";
  readonly address: string;
}

export interface SandboxMachine {
  readonly id: string;
  readonly name: string;
  readonly zone: string;
  readonly region: string;
  readonly instanceType: string;
  readonly addresses: readonly SandboxAddress[];
  /** `stopped` machines exist but are shut down. */
  readonly state: "running" | "stopped";
  /** Extra labels the cloud reports for the machine; empty when it reports none. */
  readonly labels: Readonly<Record<string, string>>;
  /** The cloud cannot tell this machine's metadata yet. */
  readonly metadataPending: boolean;
  /** The cloud's metadata for this machine carries no provider ID. */
  readonly providerIDHidden: boolean;
  /** Pod ranges the cloud routes to this machine, as it sent them (checked where they are used); empty for none. */
  readonly podCIDRs: readonly string[];
}

export interface MachinePage {
  readonly machines: readonly SandboxMachine[];
  /** The page to ask for next, or null after the last one. */
  readonly nextPage: number | null;
}

export interface SandboxPort {
  readonly name: string;
  readonly protocol: "TCP" | "UDP" | "SCTP";
  readonly port: number;
  readonly nodePort: number;
}

/** How the load balancer balances, checks and admits (docs/sandbox.md); from the Service's annotations. */
export interface LoadBalancerOptions {
  readonly algorithm: "round-robin" | "least-connections" | "source-ip";
  readonly healthCheck: { readonly intervalMs: number; readonly retries: number };
  readonly proxyProtocol: boolean;
  /** Empty ⇒ everyone may connect. */
  readonly allowedCIDRs: readonly string[];
  /** By port number; a port not listed is `tcp`. */
  readonly portProtocols: Readonly<Record<string, "tcp" | "http" | "https">>;
}

export interface LoadBalancerSpec {
  readonly cluster: string;
  readonly serviceUID: string;
  readonly serviceNamespace: string;
  readonly serviceName: string;
  readonly ports: readonly SandboxPort[];
  readonly nodes: readonly string[];
  /** Left out ⇒ the cloud's defaults. */
  readonly options?: LoadBalancerOptions;
}

export interface SandboxLoadBalancer extends LoadBalancerSpec {
  readonly name: string;
  /** The public IPv4 address the cloud allocated; stable until the load balancer is deleted. */
  readonly address: string;
}

export interface SandboxRoute {
  readonly name: string;
  readonly cluster: string;
  readonly targetNode: string;
  readonly destinationCIDR: string;
  readonly nameHint: string;
  /**
   * The target node's addresses at creation. Sent on every create; answered only by a cloud that keeps them (its
   * `routeNodeAddresses` setting), and then the route is compared by them.
   */
  readonly targetNodeAddresses?: readonly { readonly type: string; readonly address: string }[];
}

export interface SandboxApi {
  /** One page of machines (pages count from 1); with `name`, only the machine of that exact name. */
  listMachines(ctx: CallContext, query: { page: number; perPage: number; name?: string }): Promise<MachinePage>;
  /** The machine with this ID, or `undefined`. */
  getMachine(ctx: CallContext, id: string): Promise<SandboxMachine | undefined>;

  /** The load balancer of this name, or `undefined`. */
  getLoadBalancer(ctx: CallContext, name: string): Promise<SandboxLoadBalancer | undefined>;
  /** Create or update by name; idempotent. An existing load balancer keeps its address. */
  putLoadBalancer(ctx: CallContext, name: string, spec: LoadBalancerSpec): Promise<SandboxLoadBalancer>;
  /** Replace only the backend nodes. Throws (a `CloudApiError` 404) when the load balancer is absent. */
  setLoadBalancerNodes(ctx: CallContext, name: string, nodes: readonly string[]): Promise<SandboxLoadBalancer>;
  /** Delete; `false` when there was none. */
  deleteLoadBalancer(ctx: CallContext, name: string): Promise<boolean>;

  /** Routes of one cluster. */
  listRoutes(ctx: CallContext, cluster: string): Promise<SandboxRoute[]>;
  /** Create; creating an identical route again succeeds. */
  createRoute(ctx: CallContext, route: SandboxRoute): Promise<SandboxRoute>;
  /** Delete; `false` when there was none. */
  deleteRoute(ctx: CallContext, name: string): Promise<boolean>;
}
