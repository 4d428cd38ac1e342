/**
 * The node IPAM controller's runner (upstream: pkg/controller/nodeipam/ipam/range_allocator.go `Run`): with
 * `--allocate-node-cidrs`, gives every Node without pod CIDRs one subnet of each cluster CIDR (with
 * `--cidr-allocator-type=CloudAllocator`, the cloud's ranges instead: cloud-allocator.ts). After the node cache
 * syncs it marks the subnets of every existing Node taken, then works Node names off a queue; deleting a Node frees
 * its subnets at once. A Node's pod CIDRs, once set, are never changed.
 */
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import { type Informer, waitForCacheSync } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { nodeReference } from "../../platform/events.ts";
import { type ControllerContext, ControllerStartError, type StartController, type StartResult } from "../context.ts";
import { ClusterCIDRError } from "../route/cluster-cidr.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { runWorkers, SyncResult } from "../runtime/run-workers.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { CidrSet } from "./cidr-set.ts";
import { startCloudAllocator } from "./cloud-allocator.ts";
import { CidrAllocatorTypes, type NodeIpamConfig, NodeIpamConfigError, nodeIpamConfig } from "./config.ts";
import { cidrSetMetrics } from "./metrics.ts";
import {
  IpamEvents,
  type NodeStatusEvent,
  nodeStatusEvent,
  occupyNode,
  planNode,
  podCIDRPatch,
  releaseNode,
  releaseReserved,
  reserveServiceCIDRs,
  writeDecision,
} from "./plan.ts";

export const NodeIpamDeclines = {
  notAllocating: "--allocate-node-cidrs=false: pod CIDRs are left to whatever else assigns them",
} as const;

const METRIC_NAME = "nodeipam";
/** Upstream's event source for the allocator. */
const COMPONENT = "cidrAllocator";
const QUEUE_NAME = "nodeipam";
/** Upstream's `cidrUpdateWorkers`. */
const WORKERS = 30;
/** Upstream's `cidrUpdateRetries`: patch attempts before giving a reservation back. */
const PATCH_ATTEMPTS = 3;

export const startNodeIpamController: StartController = (ctx): StartResult => {
  const { options, logger } = ctx;
  if (!options.allocateNodeCIDRs) return { started: false, reason: NodeIpamDeclines.notAllocating };
  if (options.cidrAllocatorType === CidrAllocatorTypes.cloud) return startCloudAllocator(ctx);
  let config: NodeIpamConfig;
  try {
    config = nodeIpamConfig(options);
  } catch (err) {
    if (err instanceof NodeIpamConfigError || err instanceof ClusterCIDRError) {
      throw new ControllerStartError(err.message, { cause: err });
    }
    throw err;
  }
  const observer = cidrSetMetrics(ctx.registry);
  const sets = config.clusterCIDRs.map((cidr, i) => new CidrSet(cidr, config.nodeMaskSizes[i] ?? 0, observer));
  reserveServiceCIDRs(sets, config.serviceCIDRs);

  const nodes = ctx.informers.forResource<Node>(Resources.nodes);
  const queue = new WorkQueue<string>({ name: QUEUE_NAME, clock: ctx.clock, registry: ctx.registry });
  const allocator = createAllocator(ctx, sets, nodes);
  const nameOf = (node: Node) => node.metadata?.name ?? "";
  const removeHandler = nodes.addEventHandler({
    onAdd: (node) => queue.add(nameOf(node)),
    onUpdate: (_old, node) => queue.add(nameOf(node)),
    onDelete: (node) => allocator.release(node),
  });

  const running = ctx.metrics.runningManagedControllers.labels({ name: METRIC_NAME, manager: MANAGER_NAME });
  running.set(1);
  const done = (async () => {
    try {
      if (!(await waitForCacheSync([nodes], ctx.signal))) return;
      allocator.occupyExisting();
      logger.info(`allocating node pod CIDRs from ${sets.map((s) => `${s.label} (/${s.nodeMaskSize})`).join(", ")}`);
      await runWorkers(queue, WORKERS, (name) => allocator.sync(name), ctx.signal, { logger });
    } finally {
      queue.shutDown();
      removeHandler();
      running.set(0);
      logger.info("node IPAM controller stopped");
    }
  })();
  return { started: true, done };
};

function createAllocator(ctx: ControllerContext, sets: readonly CidrSet[], nodes: Informer<Node>) {
  const { client, logger, signal } = ctx;
  const recorder = ctx.recorder(COMPONENT);
  /** Written and not yet seen back through the watch: a second look must not allocate again. */
  const written = new Map<string, readonly string[]>();
  const record = (node: Node, event: NodeStatusEvent) =>
    recorder.event(
      nodeReference(node.metadata?.name ?? "", node.metadata?.uid),
      event.type,
      event.reason,
      event.message,
    );

  const write = async (node: Node, cidrs: readonly string[]): Promise<SyncResult> => {
    const name = node.metadata?.name ?? "";
    let lastError: unknown;
    for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
      try {
        await client.patch(Resources.nodes, name, "strategic", podCIDRPatch(cidrs), { signal, metadataOnly: true });
        written.set(name, cidrs);
        logger.info(`set node ${name} pod CIDRs to ${cidrs.join(",")}`);
        return SyncResult.ok;
      } catch (err) {
        if (signal.aborted) throw err;
        lastError = err;
      }
    }
    record(node, nodeStatusEvent(name, IpamEvents.assignmentFailed));
    // A timed-out write may still land: keep those subnets taken until a restart rebuilds the sets, as upstream does.
    if (!mayHaveLanded(lastError)) releaseReserved(sets, cidrs);
    logger.error(`failed to set node ${name} pod CIDRs to ${cidrs.join(",")}: ${messageOf(lastError)}`);
    return SyncResult.rateLimited;
  };

  return {
    occupyExisting(): void {
      for (const node of nodes.list()) {
        const problem = occupyNode(node, sets);
        // Upstream stops the manager here; a Node we cannot account for cannot take a subnet we hand out either.
        if (problem) logger.error(`${problem}; its pod CIDRs are not counted`);
      }
    },
    async sync(name: string): Promise<SyncResult> {
      const node = nodes.get(name);
      if (!node) return SyncResult.ok;
      if ((node.spec?.podCIDRs ?? []).length > 0) written.delete(name);
      else if (written.has(name)) return SyncResult.ok;
      const plan = planNode(node, sets);
      if (plan.kind === "occupied") {
        if (plan.problem) logger.error(plan.problem);
        return SyncResult.ok;
      }
      if (plan.kind === "unavailable") {
        record(node, plan.event);
        logger.error(plan.problem);
        return SyncResult.rateLimited;
      }
      const decision = writeDecision(nodes.get(name), plan.cidrs);
      if (decision === "release") {
        releaseReserved(sets, plan.cidrs);
        return SyncResult.ok;
      }
      if (decision === "already-set") return SyncResult.ok;
      return write(node, plan.cidrs);
    },
    release(node: Node): void {
      const name = node.metadata?.name ?? "";
      const cidrs = node.spec?.podCIDRs?.length ? node.spec.podCIDRs : written.get(name);
      written.delete(name);
      if (!cidrs) return;
      const problem = releaseNode({ ...node, spec: { ...node.spec, podCIDRs: [...cidrs] } }, sets);
      if (problem) logger.error(problem);
    },
  };
}

/** Upstream's `IsServerTimeout` (and a gateway's timeout): the write may have been applied after all. */
const mayHaveLanded = (err: unknown): boolean =>
  err instanceof KubeApiError && (err.reason === "ServerTimeout" || err.status === 504);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
