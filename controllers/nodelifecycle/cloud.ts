/**
 * The lifecycle controller's questions to the cloud (spec d.2): does the node's instance exist, is it shut down.
 * InstancesV2 answers directly; the legacy path goes through the provider ID. Sentinel errors are compared by
 * identity (`isError`), as upstream does: a wrapped `InstanceNotFoundError` is an error, not "gone".
 */
import type { Node } from "../../kube/objects.ts";
import type { CallContext, CloudProvider } from "../../providers/cloud.ts";
import { InstanceNotFoundError, isError, NotImplementedError } from "../../providers/errors.ts";
import { forEachLimited } from "../node/metadata.ts";
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

/** Upstream `ensureNodeExistsByProviderID`. `false` means the Node object is to be deleted. */
export async function instanceExists(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<boolean> {
  const v2 = cloud.instancesV2;
  if (v2) return v2.instanceExists(ctx, node);
  const instances = cloud.instances;
  if (!instances) throw new Error("instances interface not supported in the cloud provider");
  let providerID: string;
  try {
    providerID = await getProviderID(cloud, ctx, node);
  } catch (err) {
    // Upstream quirk kept (spec f.6): no instance by this name deletes the node.
    if (isError(err, InstanceNotFoundError)) return false;
    throw err;
  }
  return instances.instanceExistsByProviderID(ctx, providerID);
}

/** Upstream `shutdownInCloudProvider`. The legacy path reads `NotImplementedError` as "not shut down". */
export async function instanceShutdown(cloud: CloudProvider, ctx: CallContext, node: Node): Promise<boolean> {
  const v2 = cloud.instancesV2;
  if (v2) return v2.instanceShutdown(ctx, node);
  const instances = cloud.instances;
  if (!instances) throw new Error("cloud provider does not support instances");
  let providerID: string;
  try {
    providerID = await getProviderID(cloud, ctx, node);
  } catch (err) {
    if (isError(err, InstanceNotFoundError)) return false;
    throw err;
  }
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
 * Probe many (NotReady) nodes, keyed by node name. When the provider offers `instanceMetadataBulk`, one bulk call
 * answers every node it covers (`null` ⇒ gone, otherwise present with its `shutdown`); the rest are probed one
 * by one. A bulk call that throws `NotImplementedError` falls back to per-node probes; any other bulk failure is
 * every node's `existsFailed` (nothing is deleted on a failed listing).
 */
export async function probeNodes(
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
  options: ProbeOptions = {},
): Promise<Map<string, CloudProbe>> {
  const out = new Map<string, CloudProbe>();
  const name = (n: Node) => n.metadata?.name ?? "";
  let pending: readonly Node[] = nodes;
  const v2 = cloud.instancesV2;
  if (v2?.instanceMetadataBulk && nodes.length > 0) {
    try {
      const answers = await v2.instanceMetadataBulk(ctx, nodes);
      pending = nodes.filter((n) => {
        const info = answers.get(name(n));
        if (info === undefined) return true;
        out.set(name(n), info === null ? { kind: "gone" } : { kind: "present", shutdown: info.shutdown });
        return false;
      });
    } catch (error) {
      if (!isError(error, NotImplementedError)) {
        for (const n of nodes) out.set(name(n), { kind: "existsFailed", error });
        return out;
      }
    }
  }
  await forEachLimited(pending, options.concurrency ?? 1, async (n) => {
    out.set(name(n), await probeNode(cloud, ctx, n));
  });
  return out;
}
