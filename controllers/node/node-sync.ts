/**
 * The cloud-node controller's I/O half (upstream: controllers/node/node_controller.go): `syncNode` for the work queue
 * and `updateNodeStatus` for the periodic refresh. Decisions come from plan.ts, cloud answers from metadata.ts; this
 * file reads the lister, writes the API, records events and metrics.
 *
 * API writes per initialised node: one merge patch (provider ID, labels, taint removal) and one status patch
 * (addresses). Nothing is written when nothing changes. Upstream PUTs the cached node; our cache keeps only the
 * fields the controllers read (kube/trim.ts), so we send only what the modifiers changed, with
 * `metadata.resourceVersion` as the precondition (a 409 on a changed node, as upstream's PUT gets).
 *
 * Beyond upstream, which only logs a failed address patch after initialisation (the node then has no addresses
 * until the next refresh, five minutes by default): the sync fails, so the queue retries the node with back-off
 * (`addressRetryDelay`), and each retry patches the addresses from that initialisation until the patch lands or
 * is no longer needed.
 */
import type { ConsolaInstance } from "consola";
import { isNotFound, type KubeClient, Resources } from "../../kube/client-types.ts";
import type { Clock } from "../../kube/clock.ts";
import { mergePatchOf } from "../../kube/merge-patch.ts";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { type EventRecorder, objectReference } from "../../platform/events.ts";
import type { CallContext, CloudProvider, InstanceMetadata } from "../../providers/cloud.ts";
import type { ControllerMetrics } from "../runtime/metrics.ts";
import { retryOnConflict } from "../runtime/retry.ts";
import { AddressUpdateError, errorText, LabelUpdateError } from "./errors.ts";
import { fetchInitializationMetadata, forEachLimited, getRefreshMetadata } from "./metadata.ts";
import {
  applyModifiers,
  awaitingInitialization,
  type NodeModifier,
  planAddressUpdate,
  planInitialization,
  planLabelReconciliation,
  SYNCED_EVENT,
} from "./plan.ts";
import { classifyStuck, type StuckCause } from "./stuck.ts";

export interface NodeSyncDeps {
  readonly client: KubeClient;
  /** Already gated by the provider's rate limit (cloud-gate.ts) when it declares one. */
  readonly cloud: CloudProvider;
  readonly lister: { get(name: string): Node | undefined; list(): Node[] };
  /** Reports as `cloud-node-controller`. */
  readonly recorder: EventRecorder;
  readonly metrics: Pick<ControllerMetrics, "nodeTaintRemovalDelay" | "nodeInitialSyncDelay">;
  readonly clock: Pick<Clock, "now" | "sleep">;
  readonly logger: ConsolaInstance;
  readonly signal: AbortSignal;
  /** `--concurrent-node-status-updates`. */
  readonly statusConcurrency: number;
}

export interface NodeSyncer {
  /** Upstream `syncNode`: throws to have the key retried with back-off. */
  syncNode(name: string): Promise<void>;
  /** Upstream `UpdateNodeStatus`: one address refresh of every initialised node; never throws. */
  updateNodeStatus(): Promise<void>;
  /** The node is gone: drop what is remembered about it. */
  forget(name: string): void;
}

/**
 * Stuck-node warnings repeat on the 1st, 2nd, 4th, 8th, … consecutive failed attempt for a node. The count is
 * ours, not the queue's `numRequeues`: a `null` metadata answer is a success for the queue (no back-off), yet its
 * warning must not repeat on every node update either. It resets when the node initialises or disappears.
 */
const warnsAt = (attempt: number): boolean => (attempt & (attempt - 1)) === 0;

const nameOf = (node: Node): string => node.metadata?.name ?? "";

/** 0.5 s after the first failed address patch, doubling, at most 10 s: never far behind an API that recovered. */
export const addressRetryDelay = (failures: number): number => Math.min(500 * 2 ** (failures - 1), 10_000);

export function createNodeSyncer(deps: NodeSyncDeps): NodeSyncer {
  const { client, cloud, lister, recorder, clock, logger, signal } = deps;
  const call: CallContext = { signal };
  const stuckAttempts = new Map<string, number>();
  /** Initialised nodes whose address patch failed: the metadata their initialisation fetched, failures so far. */
  const pendingAddresses = new Map<string, { metadata: InstanceMetadata | null; failures: number }>();

  const secondsSinceCreation = (node: Node): number | undefined => {
    const created = Date.parse(node.metadata?.creationTimestamp ?? "");
    return Number.isNaN(created) ? undefined : Math.max(0, (clock.now() - created) / 1000);
  };

  const reportStuck = (node: Node, cause: StuckCause): void => {
    const name = nameOf(node);
    const attempt = (stuckAttempts.get(name) ?? 0) + 1;
    stuckAttempts.set(name, attempt);
    const warning = classifyStuck(node, cause);
    if (warning && warnsAt(attempt)) {
      recorder.event(objectReference(Resources.nodes, node), warning.type, warning.reason, warning.message);
    }
  };

  /** Upstream `updateNodeAddress`: patch `status.addresses` when they changed; failures are logged only. */
  const updateNodeAddress = async (node: Node, metadata: InstanceMetadata | null): Promise<void> => {
    const name = nameOf(node);
    const plan = planAddressUpdate(node, metadata);
    if (plan.kind === "skip") {
      if (plan.error) logger.warn(`node ${name}: not updating addresses: ${plan.reason}: ${plan.error.message}`);
      return;
    }
    try {
      await patchAddresses(name, plan.addresses);
      pendingAddresses.delete(name);
    } catch (err) {
      logger.error(`node ${name}: updating addresses failed: ${errorText(err)}`);
    }
  };

  /**
   * The address patch of an initialisation, until it lands: throws `AddressUpdateError` (the key is retried with
   * back-off) while it fails; done when it succeeds, is no longer needed, or the node is gone.
   */
  const patchInitialAddresses = async (node: Node, metadata: InstanceMetadata | null): Promise<void> => {
    const name = nameOf(node);
    const plan = planAddressUpdate(node, metadata);
    if (plan.kind === "skip") {
      pendingAddresses.delete(name);
      if (plan.error) logger.warn(`node ${name}: not updating addresses: ${plan.reason}: ${plan.error.message}`);
      return;
    }
    try {
      await patchAddresses(name, plan.addresses);
      pendingAddresses.delete(name);
    } catch (err) {
      if (isNotFound(err)) {
        pendingAddresses.delete(name);
        return;
      }
      const failures = (pendingAddresses.get(name)?.failures ?? 0) + 1;
      pendingAddresses.set(name, { metadata, failures });
      throw new AddressUpdateError(name, addressRetryDelay(failures), err);
    }
  };

  // A JSON merge patch replaces lists whole, which is what upstream's "replace" strategic patch achieves when
  // the addresses changed; sending the full list also suits a node that had none.
  const patchAddresses = (name: string, addresses: NodeAddress[]) =>
    client.patch(
      Resources.nodes,
      name,
      "merge",
      { status: { addresses } },
      { subresource: "status", signal, metadataOnly: true },
    );

  /**
   * Apply `modifiers` to the node and patch what they changed, retrying conflicts (20 × 50ms, jitter 1). The first
   * attempt reads the informer cache, as upstream; after a conflict we GET the node instead, because the cache has
   * likely not caught up yet and re-reading it would conflict again. Never a PUT: the cached node lacks what the
   * cache drops (`status.images`, `spec.unschedulable`, …), and a PUT of it would erase those on the server.
   * Returns the written node, the current one when the modifiers change nothing (no write), or `undefined` when
   * the node is gone.
   */
  const writeInitialized = (name: string, modifiers: readonly NodeModifier[]) =>
    retryOnConflict(
      async (attempt) => {
        let current: Node | undefined;
        if (attempt === 1) current = lister.get(name);
        else current = await client.get<Node>(Resources.nodes, name, { signal }).catch(absentWhenNotFound);
        if (!current) return undefined;
        const next = applyModifiers(current, modifiers);
        if (!next.changed) return { node: current, wrote: false };
        const changes = mergePatchOf(current, next.node) ?? {};
        const patch = { ...changes, metadata: { ...(changes.metadata as object), resourceVersion: rv(current) } };
        // The patch carries the cached resourceVersion, so the server's Node is the cached one with these changes:
        // of its answer only the metadata (the new resourceVersion) is new, and only that is asked for.
        const answer = await client.patch(Resources.nodes, name, "merge", patch, { signal, metadataOnly: true });
        const node: Node = { ...next.node, ...(answer.metadata && { metadata: answer.metadata }) };
        return { node, wrote: true };
      },
      { attempts: 20, baseMs: 50, jitter: 1, sleep: clock.sleep, signal },
    );

  const initialize = async (node: Node): Promise<void> => {
    const name = nameOf(node);
    let metadata: InstanceMetadata | null;
    try {
      metadata = await fetchInitializationMetadata(cloud, call, node, (m) => logger.warn(m));
    } catch (error) {
      reportStuck(node, { error });
      throw error;
    }
    const plan = planInitialization(node, metadata);
    if (plan.kind === "wait") {
      logger.info(`node ${name} stays uninitialized: ${plan.reason}`);
      reportStuck(node, { nullMetadata: true });
      return;
    }
    if (plan.kind === "error") {
      reportStuck(node, { error: plan.error });
      throw plan.error;
    }
    for (const warning of plan.warnings) logger.warn(`node ${name}: ${warning}`);

    const written = await writeInitialized(name, plan.modifiers);
    if (!written?.wrote) return;
    stuckAttempts.delete(name);
    const removalDelay = secondsSinceCreation(written.node);
    if (removalDelay !== undefined) deps.metrics.nodeTaintRemovalDelay.observe(removalDelay);
    // Addresses at once, rather than on the next periodic refresh; a failure is retried (see the file comment),
    // after the node is reported initialised, which it is.
    let addressError: unknown;
    try {
      await patchInitialAddresses(written.node, metadata);
    } catch (err) {
      addressError = err;
    }
    recorder.event(
      objectReference(Resources.nodes, written.node),
      SYNCED_EVENT.type,
      SYNCED_EVENT.reason,
      SYNCED_EVENT.message,
    );
    const syncDelay = secondsSinceCreation(written.node);
    if (syncDelay !== undefined) deps.metrics.nodeInitialSyncDelay.observe(syncDelay);
    logger.info(`node ${name} initialized`);
    if (addressError !== undefined) throw addressError;
  };

  /** Upstream `reconcileNodeLabels`: copy beta labels to their GA names when those are missing or differ. */
  const reconcileLabels = async (node: Node): Promise<void> => {
    const labels = planLabelReconciliation(node);
    if (!labels) return;
    const name = nameOf(node);
    try {
      await retryOnConflict(
        () => client.patch(Resources.nodes, name, "merge", { metadata: { labels } }, { signal, metadataOnly: true }),
        { sleep: clock.sleep, signal },
      );
    } catch (err) {
      throw new LabelUpdateError(name, err);
    }
  };

  return {
    async syncNode(name) {
      const node = lister.get(name);
      if (!node) {
        stuckAttempts.delete(name);
        pendingAddresses.delete(name);
        return;
      }
      if (awaitingInitialization(node)) return initialize(node);
      stuckAttempts.delete(name);
      const pending = pendingAddresses.get(name);
      if (pending) await patchInitialAddresses(node, pending.metadata);
      return reconcileLabels(node);
    },

    async updateNodeStatus() {
      const nodes = lister.list().filter((n) => !awaitingInitialization(n));
      if (nodes.length === 0) return;
      const concurrency = Math.max(1, deps.statusConcurrency);
      const answers = await getRefreshMetadata(cloud, call, nodes, { concurrency });
      // One failed listing fails every node with the same error: log it once, not once per node.
      const failed = new Map<unknown, string[]>();
      await forEachLimited(nodes, concurrency, async (node) => {
        const answer = answers.get(nameOf(node));
        if (answer?.kind === "metadata") return updateNodeAddress(node, answer.metadata);
        if (answer?.kind === "error") failed.set(answer.error, [...(failed.get(answer.error) ?? []), nameOf(node)]);
      });
      if (signal.aborted) return;
      for (const [error, names] of failed) {
        const more = names.length > 5 ? ", …" : "";
        const which =
          names.length === 1 ? `node ${names[0]}` : `${names.length} nodes (${names.slice(0, 5).join(", ")}${more})`;
        logger.error(`address refresh failed for ${which}: ${errorText(error)}`);
      }
    },

    forget(name) {
      stuckAttempts.delete(name);
      pendingAddresses.delete(name);
    },
  };
}

const rv = (node: Node): string | undefined => node.metadata?.resourceVersion;

function absentWhenNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}
