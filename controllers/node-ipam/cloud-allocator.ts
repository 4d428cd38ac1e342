/**
 * The node IPAM controller with `--cidr-allocator-type=CloudAllocator` (upstream's cloud allocator type): the cloud,
 * through the provider's `cidrAllocator`, says each Node's pod CIDRs, and they are written to `spec.podCIDRs` once.
 * Nodes that have pod CIDRs are left as they are; a Node without a provider ID waits for the cloud-node controller to
 * set it. `--cluster-cidr` and the mask sizes play no part.
 */
import { Resources } from "../../kube/client-types.ts";
import { waitForCacheSync } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { nodeReference } from "../../platform/events.ts";
import type { CloudProvider } from "../../providers/cloud.ts";
import { type ControllerContext, ControllerStartError, type StartResult } from "../context.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { retryAfterOf, runWorkers, SyncResult } from "../runtime/run-workers.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { cloudSkipReason, planCloudAnswer } from "./cloud-plan.ts";
import { type NodeStatusEvent, podCIDRPatch, writeDecision } from "./plan.ts";

const METRIC_NAME = "nodeipam";
/** Upstream's event source for the allocator. */
const COMPONENT = "cidrAllocator";
const QUEUE_NAME = "nodeipam";
/** Upstream's `cidrUpdateWorkers`. */
const WORKERS = 30;

/** The start error without a provider that assigns pod CIDRs; `undefined` when it has one. */
export function cloudAllocatorProblem(
  provider: Pick<CloudProvider, "providerName" | "cidrAllocator">,
): string | undefined {
  if (provider.cidrAllocator) return undefined;
  return `--cidr-allocator-type=CloudAllocator: the ${provider.providerName} provider does not assign pod CIDRs (it has no cidrAllocator); use --cidr-allocator-type=RangeAllocator with --cluster-cidr, or leave --allocate-node-cidrs off`;
}

export function startCloudAllocator(ctx: ControllerContext): StartResult {
  const { client, logger, signal, provider } = ctx;
  const allocator = provider.cidrAllocator;
  if (!allocator) throw new ControllerStartError(cloudAllocatorProblem(provider) ?? "");
  const recorder = ctx.recorder(COMPONENT);
  const record = (node: Node, event: NodeStatusEvent) =>
    recorder.event(
      nodeReference(node.metadata?.name ?? "", node.metadata?.uid),
      event.type,
      event.reason,
      event.message,
    );

  const nodes = ctx.informers.forResource<Node>(Resources.nodes);
  const queue = new WorkQueue<string>({ name: QUEUE_NAME, clock: ctx.clock, registry: ctx.registry });
  const nameOf = (node: Node) => node.metadata?.name ?? "";
  const removeHandler = nodes.addEventHandler({
    onAdd: (node) => queue.add(nameOf(node)),
    onUpdate: (_old, node) => queue.add(nameOf(node)),
  });

  const sync = async (name: string): Promise<SyncResult> => {
    const node = nodes.get(name);
    if (!node) return SyncResult.ok;
    const skip = cloudSkipReason(node);
    if (skip) {
      if (!node.spec?.providerID) logger.debug(`node ${name}: not asking the cloud for pod CIDRs: ${skip}`);
      return SyncResult.ok;
    }
    let answer: readonly string[];
    try {
      answer = await allocator.podCIDRs({ signal }, node);
    } catch (err) {
      if (signal.aborted) throw err;
      logger.error(`node ${name}: the cloud's pod CIDRs: ${(err as Error).message}`);
      const ms = retryAfterOf(err);
      return ms ? SyncResult.retryAfter(ms) : SyncResult.rateLimited;
    }
    const plan = planCloudAnswer(node, answer);
    if (plan.kind === "unavailable") record(node, plan.event);
    if (plan.kind !== "write") {
      logger.error(plan.problem);
      return SyncResult.rateLimited;
    }
    if (writeDecision(nodes.get(name), plan.cidrs) !== "write") return SyncResult.ok;
    await client.patch(Resources.nodes, name, "strategic", podCIDRPatch(plan.cidrs), { signal, metadataOnly: true });
    logger.info(`set node ${name} pod CIDRs to ${plan.cidrs.join(",")} (from the cloud)`);
    return SyncResult.ok;
  };

  const running = ctx.metrics.runningManagedControllers.labels({ name: METRIC_NAME, manager: MANAGER_NAME });
  running.set(1);
  const done = (async () => {
    try {
      if (!(await waitForCacheSync([nodes], signal))) return;
      logger.info(`assigning node pod CIDRs from the ${provider.providerName} cloud`);
      await runWorkers(queue, WORKERS, sync, signal, { logger });
    } finally {
      queue.shutDown();
      removeHandler();
      running.set(0);
      logger.info("node IPAM controller stopped");
    }
  })();
  return { started: true, done };
}
