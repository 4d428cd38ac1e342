/**
 * The lifecycle controller's questions to the cloud (upstream: node_lifecycle_controller.go
 * `ensureNodeExistsByProviderID`, `shutdownInCloudProvider`): does the node's instance exist, is it shut down.
 * InstancesV2 answers directly; the legacy path goes through the provider ID. Sentinel errors are compared by identity
 * (`isError`), as upstream does: a wrapped `InstanceNotFoundError` is an error, not "gone".
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { InstanceNotFoundError, isError, NotImplementedError } from "../../providers/errors.ts";
import { answerNodes } from "../node/metadata.ts";
import { getInstanceProviderID } from "../node/provider-id.ts";

/**
 * Predicate for the controller table: why the lifecycle controller cannot run on this provider (neither
 * `instancesV2` nor `instances`), or `undefined` when it can.
 */
export function lifecycleUnsupported(cloud: CloudProvider): string | undefined {
  return cloud.instancesV2 || cloud.instances ? undefined : "cloud provider does not support instances";
}

/**
 * The node's provider ID: `spec.providerID`, else InstancesV2 metadata's (may be empty; `null` metadata counts as
 * empty), else `<provider>://<instanceID>` from the legacy path (its `NotImplementedError` surfaces).
 */
export async function getProviderID(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<string> {
  const fromNode = node.spec?.providerID ?? "";
  if (fromNode !== "") return fromNode;
  const v2 = cloud.instancesV2;
  if (v2) return (await v2.instanceMetadata(ctx, node))?.providerID ?? "";
  return getInstanceProviderID(cloud, ctx, node.metadata?.name ?? "");
}

/**
 * The provider ID for the legacy path, or `undefined` when no instance has the node's name: upstream reads that
 * as "does not exist" and "not shut down" alike (no instance by this name deletes the node).
 */
async function legacyProviderID(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<string | undefined> {
  try {
    return await getProviderID(cloud, ctx, node);
  } catch (err) {
    if (isError(err, InstanceNotFoundError)) return undefined;
    throw err;
  }
}

/** Upstream `ensureNodeExistsByProviderID`. `false` means the Node object is to be deleted. */
export async function instanceExists(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<boolean> {
  const v2 = cloud.instancesV2;
  if (v2) return v2.instanceExists(ctx, node);
  const instances = cloud.instances;
  if (!instances) throw new Error("instances interface not supported in the cloud provider");
  const providerID = await legacyProviderID(cloud, ctx, node);
  if (providerID === undefined) return false;
  return instances.instanceExistsByProviderID(ctx, providerID);
}

/** Upstream `shutdownInCloudProvider`. The legacy path reads `NotImplementedError` as "not shut down". */
export async function instanceShutdown(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<boolean> {
  const v2 = cloud.instancesV2;
  if (v2) return v2.instanceShutdown(ctx, node);
  const instances = cloud.instances;
  if (!instances) throw new Error("cloud provider does not support instances");
  const providerID = await legacyProviderID(cloud, ctx, node);
  if (providerID === undefined) return false;
  try {
    return await instances.instanceShutdownByProviderID(ctx, providerID);
  } catch (err) {
    if (isError(err, NotImplementedError)) return false;
    throw err;
  }
}

/** What the cloud said about a NotReady node. */
export type CloudProbe =
  /** `instanceExists` failed: log, leave the node alone. */
  | { readonly kind: "existsFailed"; readonly error: unknown }
  /** The instance does not exist: delete the Node. */
  | { readonly kind: "gone" }
  /** The instance exists; `shutdown` says whether it is shut down. */
  | { readonly kind: "present"; readonly shutdown: boolean }
  /** The instance exists but `instanceShutdown` failed: log, leave the node alone. */
  | { readonly kind: "shutdownFailed"; readonly error: unknown };

/** Existence, then (only for existing instances) shutdown, for one node — upstream's per-node order. */
export async function probeNode(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<CloudProbe> {
  let exists: boolean;
  try {
    exists = await instanceExists(cloud, ctx, node);
  } catch (error) {
    return { kind: "existsFailed", error };
  }
  if (!exists) return { kind: "gone" };
  try {
    return { kind: "present", shutdown: await instanceShutdown(cloud, ctx, node) };
  } catch (error) {
    return { kind: "shutdownFailed", error };
  }
}

export interface ProbeOptions {
  /** Parallel per-node probes for nodes the bulk answer does not cover. Default 1 (upstream is sequential). */
  readonly concurrency?: number;
}

/**
 * Probe many (NotReady) nodes, keyed by node name, through `answerNodes`: a bulk answer is `null` ⇒ gone,
 * otherwise present with its `shutdown`; the rest are probed one by one; a failed bulk listing is every node's
 * `existsFailed` (nothing is deleted on a failed listing).
 */
export function probeNodes(
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
  options: ProbeOptions = {},
): Promise<Map<string, CloudProbe>> {
  return answerNodes<CloudProbe>(cloud, ctx, nodes, options.concurrency ?? 1, {
    fromBulk: (info) => (info === null ? { kind: "gone" } : { kind: "present", shutdown: info.shutdown }),
    perNode: (n) => probeNode(cloud, ctx, n),
    bulkFailed: (error) => ({ kind: "existsFailed", error }),
  });
}
