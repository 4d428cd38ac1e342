/**
 * What a provider's test file hands the conformance suite: a way to build the provider together with the cloud it
 * talks to, a way to arrange that cloud's state, and the checks it skips (each with a reason).
 */
import type { NodeAddress } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../cloud.ts";

/** A capability as the suite groups its checks. `instancesV2.bulk` is `instanceMetadataBulk`. */
export type Capability =
  | "provider"
  | "rateLimit"
  | "instancesV2"
  | "instancesV2.bulk"
  | "instances"
  | "zones"
  | "clusters"
  | "loadBalancer"
  | "routes"
  | "cidrAllocator";

/** `<capability>/<check>`, e.g. `instancesV2/stopped`; the full list is `checkIds()`. */
export type CheckId = `${Capability}/${string}`;

/** What the suite asks for when it needs a machine: a name no other machine of the cloud has. */
export interface MachineRequest {
  readonly name: string;
}

/** A machine the arrange step made, as the suite sees it: its Node's name and the provider ID it must carry. */
export interface ArrangedMachine {
  /** The name of the Node this machine would register as (usually the machine's name). */
  readonly nodeName: string;
  /** The exact `spec.providerID` the provider's metadata must report for this machine. */
  readonly providerID: string;
  /** Addresses to put in the Node's status, for providers that point load balancers or routes at node IPs. */
  readonly addresses?: readonly NodeAddress[];
}

/** A load balancer as the cloud itself reports it, independent of the provider's answers. */
export interface ArrangedLoadBalancer {
  readonly name: string;
  /** Backend hosts as Node names, in any order. */
  readonly hosts: readonly string[];
  /** Frontend ports, in any order. */
  readonly ports: readonly number[];
}

/**
 * Changes the cloud behind the provider's back, as an operator or the cloud itself would. Each call acts on the
 * same cloud the provider of the same `setup()` talks to.
 */
export interface Arrange<M extends ArrangedMachine = ArrangedMachine> {
  /** Create a running machine; it must be visible to the provider once this resolves. */
  createMachine(request: MachineRequest): Promise<M> | M;
  /** Power the machine off; it still exists. */
  stopMachine(machine: M): Promise<void> | void;
  /** Delete the machine for good. */
  deleteMachine(machine: M): Promise<void> | void;
  /**
   * Every load balancer in the cloud. Optional: without it, the checks that need the cloud's own view (one load
   * balancer after two ensures, hosts after an update) are reported as skipped, naming this hook.
   */
  listLoadBalancers?(): Promise<readonly ArrangedLoadBalancer[]> | readonly ArrangedLoadBalancer[];
}

/** One provider over one cloud, fresh for every check. */
export interface ConformanceTarget<M extends ArrangedMachine = ArrangedMachine> {
  readonly provider: CloudProvider;
  readonly arrange: Arrange<M>;
  /** Stop servers, delete what the check left behind. Runs after every check, passed or failed. */
  teardown?(): Promise<void> | void;
}

export interface ConformanceOptions<M extends ArrangedMachine = ArrangedMachine> {
  /** The name the provider registers under; `providerName` must equal it. Also the title of the suite. */
  readonly name: string;
  /**
   * Build the provider and its cloud. Called once when the suite is registered (to see which capabilities the
   * provider offers) and once per check, so checks never share state.
   */
  readonly setup: () => Promise<ConformanceTarget<M>> | ConformanceTarget<M>;
  /**
   * Checks (or whole capabilities) this provider does not meet, each with the reason. They are registered as
   * skipped tests whose name carries the reason. A key that names no check throws, so a typo cannot hide one.
   */
  readonly skip?: Readonly<Partial<Record<CheckId | Capability, string>>>;
  /** Passed as `clusterName` to load-balancer and route calls; default `conformance`. */
  readonly clusterName?: string;
  /**
   * The longest load-balancer name the cloud accepts; default 63 (a DNS label). Upstream's default name
   * (`defaultLoadBalancerName`) is 32 characters.
   */
  readonly maxLoadBalancerNameLength?: number;
}

/** What a check receives. */
export interface CheckContext<M extends ArrangedMachine = ArrangedMachine> {
  readonly provider: CloudProvider;
  readonly arrange: Arrange<M>;
  readonly ctx: CallContext;
  readonly clusterName: string;
  readonly maxLoadBalancerNameLength: number;
  /** A name unique within this check, e.g. for machines: `cf-<run>-<n>`. */
  uniqueName(): string;
}

export interface Check {
  readonly id: CheckId;
  readonly capability: Capability;
  /** What the check proves, read as a sentence after the capability: "instanceExists is true for a stopped machine". */
  readonly title: string;
  /** Arrange hooks the check cannot work without; missing ones skip it, naming the hook. */
  readonly needs?: readonly "listLoadBalancers"[];
  run(t: CheckContext): Promise<void>;
}
