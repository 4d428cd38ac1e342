/**
 * The cloud-node-lifecycle controller's runner (upstream: node_lifecycle_controller.go): `MonitorNodes` at once, then
 * every `--node-monitor-period` after each pass ends. Each pass reads the node cache, decides Ready nodes without the
 * cloud, probes the NotReady ones (one bulk call when the provider offers it), and applies the decisions one node at a
 * time: delete gone nodes, add or remove the shutdown taint.
 *
 * Unlike upstream we wait for the node cache before the first pass; an unsynced cache would only make that pass
 * a no-op.
 */
import type { ConsolaInstance } from "consola";
import { isNotFound, type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Sleep } from "../../kube/clock.ts";
import { waitForCacheSync } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import type { EventRecorder } from "../../platform/events.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import type { StartController, StartResult } from "../context.ts";
import { MANAGER_NAME } from "../runtime/metrics.ts";
import { retryOnConflict } from "../runtime/retry.ts";
import { type CloudProbe, lifecycleUnsupported, probeNodes } from "./cloud.ts";
import {
  deletingNodeFailedEvent,
  type LifecycleDecision,
  type NodeEvent,
  type NodeModifier,
  planAfterProbe,
  planReadiness,
} from "./plan.ts";

/** Event source component, upstream's. */
export const CLOUD_NODE_LIFECYCLE_COMPONENT = "cloud-node-lifecycle-controller";
/** `running_managed_controllers{name}` (upstream's legacy name). */
export const CLOUD_NODE_LIFECYCLE_METRIC_NAME = "cloud-node-lifecycle";

const nameOf = (node: Node): string => node.metadata?.name ?? "";
const text = (err: unknown): string => (err instanceof Error ? err.message : String(err));

interface MonitorDeps {
  readonly client: KubeClient;
  readonly cloud: CloudProvider;
  readonly recorder: EventRecorder;
  readonly sleep: Sleep;
  readonly logger: ConsolaInstance;
  readonly signal: AbortSignal;
}

/** Declines per `lifecycleUnsupported`; otherwise runs until `ctx.signal` aborts. */
export const startCloudNodeLifecycleController: StartController = (ctx): StartResult => {
  const unsupported = lifecycleUnsupported(ctx.provider);
  if (unsupported) return { started: false, reason: unsupported };

  const { clock, logger, signal } = ctx;
  const informer = ctx.informers.forResource<Node>(Resources.nodes);
  const deps: MonitorDeps = {
    client: ctx.client,
    cloud: ctx.provider,
    recorder: ctx.recorder(CLOUD_NODE_LIFECYCLE_COMPONENT),
    sleep: clock.sleep,
    logger,
    signal,
  };

  const run = async (): Promise<void> => {
    const running = { name: CLOUD_NODE_LIFECYCLE_METRIC_NAME, manager: MANAGER_NAME };
    ctx.metrics.runningManagedControllers.set(running, 1);
    try {
      if (!(await waitForCacheSync([informer], signal))) return;
      while (!signal.aborted) {
        try {
          await monitorNodes(deps, informer.list());
        } catch (err) {
          logger.error(`monitoring nodes failed: ${text(err)}`);
        }
        await clock.sleep(ctx.options.nodeMonitorPeriodMs, signal);
      }
    } finally {
      ctx.metrics.runningManagedControllers.set(running, 0);
    }
  };
  return { started: true, done: run() };
};

/** One `MonitorNodes` pass over `nodes` (the cache's current list). */
async function monitorNodes(deps: MonitorDeps, nodes: readonly Node[]): Promise<void> {
  const toProbe: Node[] = [];
  for (const node of nodes) {
    const decision = planReadiness(node);
    if (decision.kind === "probe") toProbe.push(node);
    else await apply(deps, node, decision);
  }
  if (toProbe.length === 0 || deps.signal.aborted) return;

  const call: CallContext = { signal: deps.signal };
  const probes = await probeNodes(deps.cloud, call, toProbe);
  // A failed bulk listing is every node's error: log it once.
  const failed = new Map<unknown, string[]>();
  for (const node of toProbe) {
    if (deps.signal.aborted) return;
    const probe: CloudProbe = probes.get(nameOf(node)) ?? { kind: "existsFailed", error: new Error("no answer") };
    const decision = planAfterProbe(node, probe);
    if (decision.kind === "none" && decision.error !== undefined) {
      failed.set(decision.error, [...(failed.get(decision.error) ?? []), `${nameOf(node)} (${decision.reason})`]);
    } else {
      await apply(deps, node, decision);
    }
  }
  for (const [error, names] of failed) {
    const more = names.length > 5 ? `, and ${names.length - 5} more` : "";
    deps.logger.error(`cloud check failed for node ${names.slice(0, 5).join(", ")}${more}: ${text(error)}`);
  }
}

async function apply(deps: MonitorDeps, node: Node, decision: LifecycleDecision): Promise<void> {
  const name = nameOf(node);
  switch (decision.kind) {
    case "none":
    case "probe":
      return;
    case "delete":
      return deleteNode(deps, node, decision.event);
    case "removeShutdownTaint":
    case "addShutdownTaint":
      try {
        const wrote = await patchTaints(deps, name, decision.modify);
        if (wrote)
          deps.logger.info(
            `node ${name}: ${decision.kind === "addShutdownTaint" ? "added" : "removed"} the shutdown taint`,
          );
      } catch (err) {
        deps.logger.error(`node ${name}: updating the shutdown taint failed: ${text(err)}`);
      }
      return;
  }
}

async function deleteNode(deps: MonitorDeps, node: Node, event: NodeEvent): Promise<void> {
  const name = nameOf(node);
  deps.logger.info(`deleting node ${name}: its instance does not exist in the cloud provider`);
  deps.recorder.event(event.involvedObject, event.type, event.reason, event.message);
  try {
    await deps.client.delete(Resources.nodes, name, { signal: deps.signal });
  } catch (err) {
    const failed = deletingNodeFailedEvent(node, err);
    deps.recorder.event(failed.involvedObject, failed.type, failed.reason, failed.message);
    deps.logger.error(`deleting node ${name} failed: ${text(err)}`);
  }
}

/**
 * Upstream's taint helpers (node/helpers/taints.go `AddOrUpdateTaintOnNode`, `RemoveTaintOffNode`): GET the node (the
 * first try may be served from the API server's cache, resourceVersion "0"; later tries read fresh), apply `modify` to
 * a copy, write nothing when the taints are unchanged, else send a JSON merge patch with the FULL taints list (merge
 * patches replace lists, so removal works and no strategic-merge directive is needed) and `metadata.resourceVersion`,
 * so a node changed in between is refused with 409 (the real API and its emulator both do) and retried, 5 × 100ms.
 * Callers have already skipped removal when their cached copy carries no matching taint. Returns whether it wrote; a
 * node that is gone counts as nothing to do.
 */
async function patchTaints(deps: MonitorDeps, name: string, modify: NodeModifier): Promise<boolean> {
  const { client, signal } = deps;
  return retryOnConflict(
    async (attempt) => {
      let current: Node;
      try {
        const opts = attempt === 1 ? { signal, resourceVersion: "0" } : { signal };
        current = await client.get<Node>(Resources.nodes, name, opts);
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      const before = JSON.stringify(current.spec?.taints ?? []);
      const copy = structuredClone(current);
      modify(copy);
      const taints = copy.spec?.taints ?? [];
      if (JSON.stringify(taints) === before) return false;
      const resourceVersion = current.metadata?.resourceVersion;
      const patch = { metadata: { resourceVersion }, spec: { taints } };
      await client.patch<Node>(Resources.nodes, name, "merge", patch, { signal });
      return true;
    },
    { attempts: 5, baseMs: 100, jitter: 1, sleep: deps.sleep, signal },
  );
}
