/**
 * The controllers' and work queues' metrics, with upstream's names, types, labels, buckets and help texts
 * (k8s.io/cloud-provider's controller metrics and client-go's work queue metrics).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { alpha, beta, exponentialBuckets, perRegistry } from "../../platform/metrics.ts";

export const MANAGER_NAME = "cloud-controller-manager";

export interface ControllerMetrics {
  /** `running_managed_controllers{name, manager}`: 1 while a controller runs (legacy names: `cloud-node`, …). */
  readonly runningManagedControllers: Gauge<"name" | "manager">;
  readonly nodeTaintRemovalDelay: Histogram;
  readonly nodeInitialSyncDelay: Histogram;
  readonly serviceLoadBalancerSync: Counter;
  readonly serviceNodeSyncErrors: Counter;
  readonly serviceNodeSyncLatency: Histogram;
  readonly serviceUpdateLoadBalancerHostLatency: Histogram;
  readonly routeSync: Counter;
  readonly webhookRequests: Counter<"code" | "webhook">;
  readonly webhookRequestDuration: Histogram<"code" | "webhook">;
}

const NODE_DELAY_BUCKETS = exponentialBuckets(1, 4, 6);
const SERVICE_LATENCY_BUCKETS = exponentialBuckets(1, 2, 15);

export const controllerMetrics = (registry: Registry): ControllerMetrics =>
  perRegistry(registry, "controllers", () => {
    const registers = [registry];
    return {
      runningManagedControllers: new Gauge({
        name: "running_managed_controllers",
        help: beta("Indicates where instances of a controller are currently running"),
        labelNames: ["name", "manager"] as const,
        registers,
      }),
      nodeTaintRemovalDelay: new Histogram({
        name: "node_controller_cloud_provider_taint_removal_delay_seconds",
        help: alpha(
          "Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.",
        ),
        buckets: NODE_DELAY_BUCKETS,
        registers,
      }),
      nodeInitialSyncDelay: new Histogram({
        name: "node_controller_initial_node_sync_delay_seconds",
        help: alpha(
          "Number of seconds after node creation when NodeController finished the initial synchronization of a single node.",
        ),
        buckets: NODE_DELAY_BUCKETS,
        registers,
      }),
      serviceLoadBalancerSync: new Counter({
        name: "service_controller_loadbalancer_sync_total",
        help: alpha(
          "A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster.",
        ),
        registers,
      }),
      serviceNodeSyncErrors: new Counter({
        name: "service_controller_nodesync_error_total",
        help: alpha(
          "A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster.",
        ),
        registers,
      }),
      serviceNodeSyncLatency: new Histogram({
        name: "service_controller_nodesync_latency_seconds",
        help: alpha(
          "A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.",
        ),
        buckets: SERVICE_LATENCY_BUCKETS,
        registers,
      }),
      serviceUpdateLoadBalancerHostLatency: new Histogram({
        name: "service_controller_update_loadbalancer_host_latency_seconds",
        help: alpha("A metric measuring the latency for updating each load balancer hosts."),
        buckets: SERVICE_LATENCY_BUCKETS,
        registers,
      }),
      routeSync: new Counter({
        name: "route_controller_route_sync_total",
        help: alpha("A metric counting the amount of times routes have been synced with the cloud provider."),
        registers,
      }),
      webhookRequests: new Counter({
        name: "cloud_provider_webhook_request_total",
        help: alpha("Number of HTTP requests partitioned by status code and webhook name."),
        labelNames: ["code", "webhook"] as const,
        registers,
      }),
      webhookRequestDuration: new Histogram({
        name: "cloud_provider_webhook_request_duration_seconds",
        help: alpha("Latency of HTTP requests partitioned by status code and webhook name."),
        labelNames: ["code", "webhook"] as const,
        buckets: [0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10],
        registers,
      }),
    };
  });

/** What a work queue reports at scrape time for the two "in progress" gauges. */
export interface InProgressReporter {
  readonly name: string;
  /** Seconds of work in progress, summed over all items being processed, and the longest single one. */
  inProgress(): { unfinishedSeconds: number; longestSeconds: number };
}

export interface WorkqueueMetrics {
  readonly depth: Gauge<"name">;
  readonly adds: Counter<"name">;
  readonly queueDuration: Histogram<"name">;
  readonly workDuration: Histogram<"name">;
  readonly retries: Counter<"name">;
  /** Queues whose unfinished/longest-running gauges are computed at scrape time. */
  readonly reporters: Set<InProgressReporter>;
}

const QUEUE_BUCKETS = exponentialBuckets(10e-9, 10, 10);

export const workqueueMetrics = (registry: Registry): WorkqueueMetrics =>
  perRegistry(registry, "workqueue", () => {
    const registers = [registry];
    const labelNames = ["name"] as const;
    const reporters = new Set<InProgressReporter>();
    new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: alpha(
        "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      ),
      labelNames,
      registers,
      collect() {
        for (const r of reporters) this.set({ name: r.name }, r.inProgress().unfinishedSeconds);
      },
    });
    new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: alpha("How many seconds has the longest running processor for workqueue been running."),
      labelNames,
      registers,
      collect() {
        for (const r of reporters) this.set({ name: r.name }, r.inProgress().longestSeconds);
      },
    });
    return {
      reporters,
      depth: new Gauge({ name: "workqueue_depth", help: alpha("Current depth of workqueue"), labelNames, registers }),
      adds: new Counter({
        name: "workqueue_adds_total",
        help: alpha("Total number of adds handled by workqueue"),
        labelNames,
        registers,
      }),
      queueDuration: new Histogram({
        name: "workqueue_queue_duration_seconds",
        help: alpha("How long in seconds an item stays in workqueue before being requested."),
        labelNames,
        buckets: QUEUE_BUCKETS,
        registers,
      }),
      workDuration: new Histogram({
        name: "workqueue_work_duration_seconds",
        help: alpha("How long in seconds processing an item from workqueue takes."),
        labelNames,
        buckets: QUEUE_BUCKETS,
        registers,
      }),
      retries: new Counter({
        name: "workqueue_retries_total",
        help: alpha("Total number of retries handled by workqueue"),
        labelNames,
        registers,
      }),
    };
  });
