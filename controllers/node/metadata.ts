/**
 * Gathering instance metadata from the cloud (upstream: node_controller.go `getInstanceMetadata`): the only module of
 * the cloud-node controller that calls the provider. Initialisation uses `getInstanceMetadata` (InstancesV2, else
 * legacy Instances plus Zones); the periodic refresh uses `getInstanceNodeAddresses` / `getRefreshMetadata` (addresses
 * only).
 *
 * Error checks follow upstream exactly: `NotImplementedError` from the provider-ID lookup is recognised through
 * wrapping (`findInCauseChain`); everything else is passed on for the runner to log and retry.
 */
import type { Node, NodeAddress } from "../../kube/objects.ts";
import type {
  BulkInstanceInfo,
  CallContext,
  CloudProvider,
  InstanceMetadata,
  Instances,
  Zones,
} from "../../providers/cloud.ts";
import { findInCauseChain, isError, NotImplementedError } from "../../providers/errors.ts";
import { errorText, FallbackLookupError, InstanceMetadataError, MissingProviderIDError } from "./errors.ts";
import { getInstanceProviderID, NO_INSTANCES_MESSAGE } from "./provider-id.ts";

/**
 * Predicate for the controller table: why the cloud-node controller cannot run on this provider (neither
 * `instancesV2` nor `instances`), or `undefined` when it can.
 */
export function cloudNodeUnsupported(cloud: CloudProvider): string | undefined {
  return cloud.instancesV2 || cloud.instances ? undefined : "cloud provider does not support instances";
}

/** Where non-fatal findings go (upstream logs them as warnings). */
export type Warn = (message: string) => void;

/**
 * Upstream `getInstanceMetadata`. InstancesV2: its answer, with the node's provider ID filled in when the cloud
 * gave none; throws `MissingProviderIDError` when neither has one. `null` passes through (the node waits).
 * Legacy: provider ID (from the node, else `<provider>://<instanceID>`), addresses, instance type, and zone
 * when `zones` exists, each by provider ID with a fallback by node name.
 */
export async function getInstanceMetadata(
  cloud: CloudProvider,
  ctx: CallContext,
  node: Node,
  warn: Warn = () => {},
): Promise<InstanceMetadata | null> {
  const name = node.metadata?.name ?? "";
  const nodeProviderID = node.spec?.providerID ?? "";
  const v2 = cloud.instancesV2;
  if (v2) {
    const metadata = await v2.instanceMetadata(ctx, node);
    if (metadata === null || metadata.providerID !== "") return metadata;
    if (nodeProviderID === "") throw new MissingProviderIDError(name, metadata);
    return { ...metadata, providerID: nodeProviderID };
  }

  const instances = cloud.instances;
  if (!instances) throw new Error(NO_INSTANCES_MESSAGE);
  let providerID = nodeProviderID;
  if (providerID === "") {
    try {
      providerID = await getInstanceProviderID(cloud, ctx, name);
    } catch (err) {
      if (!findInCauseChain(err, NotImplementedError)) throw err;
      warn(`cloud provider has no instance IDs (${errorText(err)}); looking up node ${name} by name`);
      providerID = "";
    }
  }
  const nodeAddresses = await addressesByProviderIDOrName(instances, ctx, providerID, name);
  const instanceType = await instanceTypeByProviderIDOrName(instances, ctx, providerID, name);
  const metadata = { providerID, instanceType, nodeAddresses, zone: "", region: "" };
  const zones = cloud.zones;
  if (!zones) return metadata;
  const zone = await zoneByProviderIDOrName(zones, ctx, providerID, name);
  if (zone.failureDomain !== "") metadata.zone = zone.failureDomain;
  if (zone.region !== "") metadata.region = zone.region;
  return metadata;
}

/** syncNode step 3: `getInstanceMetadata` with failures wrapped as `failed to get instance metadata for node …`. */
export async function fetchInitializationMetadata(
  cloud: CloudProvider,
  ctx: CallContext,
  node: Node,
  warn?: Warn,
): Promise<InstanceMetadata | null> {
  try {
    return await getInstanceMetadata(cloud, ctx, node, warn);
  } catch (err) {
    throw new InstanceMetadataError(node.metadata?.name ?? "", err);
  }
}

/**
 * Upstream `getInstanceNodeAddresses` for the periodic refresh: InstancesV2 metadata (one call, may be `null`),
 * or legacy addresses by provider ID with a fallback by name (no type or zone calls).
 */
export async function getInstanceNodeAddresses(
  cloud: CloudProvider,
  ctx: CallContext,
  node: Node,
): Promise<InstanceMetadata | null> {
  const v2 = cloud.instancesV2;
  if (v2) return v2.instanceMetadata(ctx, node);
  const instances = cloud.instances;
  if (!instances) throw new Error(NO_INSTANCES_MESSAGE);
  const nodeAddresses = await addressesByProviderIDOrName(
    instances,
    ctx,
    node.spec?.providerID ?? "",
    node.metadata?.name ?? "",
  );
  return { providerID: "", instanceType: "", nodeAddresses, zone: "", region: "" };
}

/** One node's answer for the refresh: metadata (`null` = nothing to apply) or the error to log. */
export type RefreshAnswer =
  | { readonly kind: "metadata"; readonly metadata: InstanceMetadata | null }
  | { readonly kind: "error"; readonly error: unknown };

export interface RefreshOptions {
  /** Parallel per-node lookups (upstream `ConcurrentNodeStatusUpdates`). Default 1. */
  readonly concurrency?: number;
}

/**
 * Refresh answers for many nodes, keyed by node name, through `answerNodes`: a bulk entry's metadata (`null`,
 * "instance not found", means nothing to apply), else `getInstanceNodeAddresses` one by one; a failed bulk
 * listing is every node's error.
 */
export function getRefreshMetadata(
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
  options: RefreshOptions = {},
): Promise<Map<string, RefreshAnswer>> {
  return answerNodes<RefreshAnswer>(cloud, ctx, nodes, options.concurrency ?? 1, {
    fromBulk: (info) => ({ kind: "metadata", metadata: info?.metadata ?? null }),
    perNode: async (n) => {
      try {
        return { kind: "metadata", metadata: await getInstanceNodeAddresses(cloud, ctx, n) };
      } catch (error) {
        return { kind: "error", error };
      }
    },
    bulkFailed: (error) => ({ kind: "error", error }),
  });
}

/** How `answerNodes` turns the cloud's answers into one per node. None of them may throw. */
export interface NodeAnswers<A> {
  fromBulk(info: BulkInstanceInfo | null): A;
  perNode(node: Node): Promise<A>;
  bulkFailed(error: unknown): A;
}

/**
 * One answer per node, keyed by node name, for the cloud-node refresh and the lifecycle probe alike. With
 * `instanceMetadataBulk`, one bulk call answers every node it covers, and only the nodes missing from its answer
 * are asked one by one (at most `concurrency` in flight). A bulk call that throws `NotImplementedError` falls
 * back to asking every node; any other bulk failure is every node's answer (one failing listing must not become
 * a thousand failing calls).
 */
export async function answerNodes<A>(
  cloud: CloudProvider,
  ctx: CallContext,
  nodes: readonly Node[],
  concurrency: number,
  answers: NodeAnswers<A>,
): Promise<Map<string, A>> {
  const out = new Map<string, A>();
  let pending: readonly Node[] = nodes;
  const v2 = cloud.instancesV2;
  if (v2?.instanceMetadataBulk && nodes.length > 0) {
    try {
      const bulk = await v2.instanceMetadataBulk(ctx, nodes);
      pending = nodes.filter((n) => {
        const info = bulk.get(nodeName(n));
        if (info === undefined) return true;
        out.set(nodeName(n), answers.fromBulk(info));
        return false;
      });
    } catch (error) {
      if (!isError(error, NotImplementedError)) {
        for (const n of nodes) out.set(nodeName(n), answers.bulkFailed(error));
        return out;
      }
    }
  }
  await forEachLimited(pending, concurrency, async (n) => {
    out.set(nodeName(n), await answers.perNode(n));
  });
  return out;
}

function nodeName(node: Node): string {
  return node.metadata?.name ?? "";
}

/** Run `fn` over `items` with at most `limit` in flight. `fn` must not throw. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

async function addressesByProviderIDOrName(
  instances: Instances,
  ctx: CallContext,
  providerID: string,
  name: string,
): Promise<NodeAddress[]> {
  try {
    return await instances.nodeAddressesByProviderID(ctx, providerID);
  } catch (byID) {
    try {
      return await instances.nodeAddresses(ctx, name);
    } catch (byName) {
      const message = `error fetching node by provider ID: ${errorText(byID)}, and error by node name: ${errorText(byName)}`;
      throw new FallbackLookupError(message, byID, byName);
    }
  }
}

async function instanceTypeByProviderIDOrName(
  instances: Instances,
  ctx: CallContext,
  providerID: string,
  name: string,
): Promise<string> {
  try {
    return await instances.instanceTypeByProviderID(ctx, providerID);
  } catch (byID) {
    try {
      return await instances.instanceType(ctx, name);
    } catch (byName) {
      const message = `InstanceType: Error fetching by providerID: ${errorText(byID)} Error fetching by NodeName: ${errorText(byName)}`;
      throw new FallbackLookupError(message, byID, byName);
    }
  }
}

async function zoneByProviderIDOrName(zones: Zones, ctx: CallContext, providerID: string, name: string) {
  try {
    return await zones.getZoneByProviderID(ctx, providerID);
  } catch (byID) {
    try {
      return await zones.getZoneByNodeName(ctx, name);
    } catch (byName) {
      const message = `failed to get zone from cloud provider: Zone: Error fetching by providerID: ${errorText(byID)} Error fetching by NodeName: ${errorText(byName)}`;
      throw new FallbackLookupError(message, byID, byName);
    }
  }
}
