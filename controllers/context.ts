/**
 * What every controller runner receives from the manager, and what it answers. A runner is
 * `start(ctx) → StartResult`: it either declines (a missing capability turns a controller off; the reason is
 * logged in one line, never an error) or starts and runs until `ctx.signal` aborts.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { KubeClient } from "../kube/client-types.ts";
import type { Clock } from "../kube/clock.ts";
import type { InformerFactory } from "../kube/informer-factory.ts";
import type { WriteFence } from "../kube/write-fence.ts";
import type { EventRecorder } from "../platform/events.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import type { ControllerName } from "./names.ts";
import type { ControllerMetrics } from "./runtime/metrics.ts";

/** The subset of the command's options the controllers read (kept apart so controllers do not import cmd/). */
export interface ControllerOptions {
  readonly clusterName: string;
  /** `--cluster-cidr` as given (comma-separated). */
  readonly clusterCIDR: string;
  readonly configureCloudRoutes: boolean;
  /** `--allocate-node-cidrs`: the node IPAM controller runs only when set. */
  readonly allocateNodeCIDRs: boolean;
  readonly cidrAllocatorType: string;
  /** The `--node-cidr-mask-size*` flags; 0 = not given. */
  readonly nodeCIDRMaskSize: number;
  readonly nodeCIDRMaskSizeIPv4: number;
  readonly nodeCIDRMaskSizeIPv6: number;
  readonly serviceClusterIPRange: string;
  readonly routeReconciliationPeriodMs: number;
  readonly nodeMonitorPeriodMs: number;
  readonly nodeStatusUpdateFrequencyMs: number;
  readonly concurrentNodeSyncs: number;
  readonly concurrentNodeStatusUpdates: number;
  readonly concurrentServiceSyncs: number;
  readonly featureGates: ReadonlyMap<string, boolean>;
}

export interface ControllerContext {
  readonly name: ControllerName;
  readonly client: KubeClient;
  readonly provider: CloudProvider;
  /**
   * Shared informers: `informers.forResource(Resources.nodes)`. Already started: add handlers right after asking (they
   * still get every cached object); do not wait for a sync inside `start`.
   */
  readonly informers: InformerFactory;
  /** An event recorder reporting as `component` (upstream names: `cloud-node-controller`, `service-controller`, …). */
  readonly recorder: (component: string) => EventRecorder;
  readonly metrics: ControllerMetrics;
  /** For work-queue metrics (`new WorkQueue({ name, registry })`). */
  readonly registry: Registry;
  readonly clock: Clock;
  /** Tagged with the controller's name. */
  readonly logger: ConsolaInstance;
  readonly options: ControllerOptions;
  /** Aborts when the manager stops or loses leadership; the runner must then stop promptly. */
  readonly signal: AbortSignal;
  /**
   * The term's write fence (kube/write-fence.ts). `client` already goes through it; pass it on in the
   * `CallContext` of every provider call that changes the cloud. The manager always sets it; tests may not.
   */
  readonly fence?: WriteFence | undefined;
}

export type StartResult =
  | {
      readonly started: true;
      /** Resolves once the controller has stopped (queues shut down, loops ended) after the signal aborted. */
      readonly done: Promise<void>;
    }
  | { readonly started: false; readonly reason: string };

export type StartController = (ctx: ControllerContext) => StartResult | Promise<StartResult>;

/** A start error that must stop the manager (upstream's fatal start errors, e.g. an invalid --cluster-cidr). */
export class ControllerStartError extends Error {
  override readonly name = "ControllerStartError";
}
