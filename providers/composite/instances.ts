/**
 * The composite's InstancesV2: every question about a Node goes to the part that owns it (routing.ts).
 *
 * Safety, the point of composing: the framework deletes a NotReady Node when `instanceExists` is false and taints it
 * when `instanceShutdown` is true, and leaves it alone when either throws. So
 * - a Node no part owns (a provider ID of another scheme, or no part finds it by name) exists and is not shut down,
 *   with a Warning event saying why: a bare-metal machine the cloud does not know is kept (hccm #789);
 * - a part that fails passes its error on (the framework keeps the Node and asks again) with a Warning event, and a
 *   Node without a provider ID is never handed to a later part while an earlier one cannot answer;
 * - only the owning part's own "does not exist" deletes a Node.
 *
 * `InstanceNotFoundError` and `NotImplementedError` pass through as they are (the controllers compare them by
 * identity); every other error is wrapped with the part's name.
 */
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, CallContext, InstanceMetadata, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError, isError, NotImplementedError, wrapError } from "../errors.ts";
import type { WarningRecorder } from "../kit/warning-events.ts";
import { schemeOf } from "./config.ts";
import { NodeWarningReasons } from "./node-warnings.ts";
import { foreignText, type NodePart, routeNode } from "./routing.ts";

/** instanceMetadata for a Node whose provider ID leads to no configured part. */
export class UnownedNodeError extends Error {
  override readonly name = "UnownedNodeError";
}

export interface CompositeInstancesInput {
  /** The Node-serving parts, in the configured order. */
  readonly parts: readonly NodePart[];
  /** Logged only until `initialize` gives the composite a Kubernetes client, Warning events too after. */
  readonly warnings: WarningRecorder<Node>;
}

type Question = "instanceExists" | "instanceShutdown" | "instanceMetadata";

export function createCompositeInstances({ parts, warnings }: CompositeInstancesInput): InstancesV2 {
  /**
   * Nodes whose part's bulk listing just failed, with its error. The framework asks the Nodes missing from a bulk
   * answer one by one, right after; their first question fails at once with the listing's error instead of
   * becoming one failing cloud call per Node (one failing listing is one failure, as for a single provider).
   */
  const bulkFailures = new WeakMap<Node, { part: string; error: unknown }>();

  const nodeName = (node: Node) => node.metadata?.name ?? "";

  /** Asks `part`; a failure is warned about (lifecycle questions only) and passed on, wrapped. */
  async function ask<T>(part: NodePart, q: Question, node: Node, call: () => Promise<T>): Promise<T> {
    const failed = bulkFailures.get(node);
    if (failed?.part === part.name) bulkFailures.delete(node);
    try {
      if (failed?.part === part.name) throw failed.error;
      return await call();
    } catch (err) {
      if (isError(err, InstanceNotFoundError) || isError(err, NotImplementedError)) throw err;
      if (q !== "instanceMetadata") {
        const text = err instanceof Error ? err.message : String(err);
        warnings.warn(
          node,
          NodeWarningReasons.unavailable,
          `cannot ask provider "${part.name}" about this node (${text}); the node is kept as it is until it answers`,
        );
      }
      throw wrapError(`composite/${part.name}.${q}`, err);
    }
  }

  function warnForeign(node: Node, providerID: string, scheme: string | undefined): void {
    const text = `${foreignText(parts, providerID, scheme)}; the node is kept, never deleted or tainted`;
    warnings.warn(node, NodeWarningReasons.unowned, text);
  }

  /** The first part, in order, whose instance answers for this Node without a provider ID; undefined if none. */
  async function claimant(ctx: CallContext, node: Node): Promise<NodePart | undefined> {
    for (const part of parts) {
      if (await ask(part, "instanceExists", node, () => part.instances.instanceExists(ctx, node))) return part;
    }
    warnings.warn(
      node,
      NodeWarningReasons.unowned,
      `no configured provider (${parts.map((p) => p.name).join(", ")}) has an instance for this node; the node is kept, never deleted or tainted`,
    );
    return undefined;
  }

  /** Metadata from `part`, refusing a provider ID that would not route back to it. */
  function checked(part: NodePart, node: Node, metadata: InstanceMetadata | null): InstanceMetadata | null {
    if (metadata === null || metadata.providerID === "" || node.spec?.providerID) return metadata;
    const scheme = schemeOf(metadata.providerID);
    if (scheme !== undefined && part.schemes.includes(scheme)) return metadata;
    throw new Error(
      `composite/${part.name}.instanceMetadata: node ${nodeName(node)} would get provider ID "${metadata.providerID}", whose scheme is not among ${part.name}'s schemes (${part.schemes.join(", ")}); add it to that provider's schemes: in the cloud-config`,
    );
  }

  const instances: InstancesV2 = {
    async instanceExists(ctx, node) {
      const route = routeNode(parts, node);
      if (route.kind === "part") {
        return ask(route.part, "instanceExists", node, () => route.part.instances.instanceExists(ctx, node));
      }
      if (route.kind === "foreign") warnForeign(node, route.providerID, route.scheme);
      else await claimant(ctx, node);
      return true;
    },

    async instanceShutdown(ctx, node) {
      const route = routeNode(parts, node);
      const part =
        route.kind === "part" ? route.part : route.kind === "unassigned" ? await claimant(ctx, node) : undefined;
      if (!part) return false;
      return ask(part, "instanceShutdown", node, () => part.instances.instanceShutdown(ctx, node));
    },

    async instanceMetadata(ctx, node) {
      const route = routeNode(parts, node);
      if (route.kind === "part") {
        const { part } = route;
        return checked(
          part,
          node,
          await ask(part, "instanceMetadata", node, () => part.instances.instanceMetadata(ctx, node)),
        );
      }
      if (route.kind === "foreign") {
        throw new UnownedNodeError(
          `composite.instanceMetadata: node ${nodeName(node)}: ${foreignText(parts, route.providerID, route.scheme)}`,
        );
      }
      for (const part of parts) {
        try {
          // "Cannot tell yet" from a part asked in order stops the search as an error would: a later part must not
          // take a Node an earlier one may still own.
          return checked(
            part,
            node,
            await ask(part, "instanceMetadata", node, () => part.instances.instanceMetadata(ctx, node)),
          );
        } catch (err) {
          if (!isError(err, InstanceNotFoundError)) throw err;
        }
      }
      throw new InstanceNotFoundError(
        `no configured provider (${parts.map((p) => p.name).join(", ")}) has an instance for node ${nodeName(node)}`,
      );
    },
  };

  const bulkParts = parts.filter((p) => p.instances.instanceMetadataBulk);
  if (bulkParts.length === 0) return instances;

  /**
   * Each part's bulk listing for the Nodes it owns, all at once. Nodes without a provider ID, Nodes no part owns
   * and Nodes of parts without a bulk form are left out of the answer, so the framework asks them one by one
   * (never `null`, which would delete them). A part whose listing fails leaves its Nodes out too; the others'
   * answers stand.
   */
  instances.instanceMetadataBulk = async (ctx, nodes) => {
    const byPart = new Map<NodePart, Node[]>();
    for (const node of nodes) {
      const route = routeNode(bulkParts, node);
      if (route.kind !== "part") continue;
      byPart.set(route.part, [...(byPart.get(route.part) ?? []), node]);
    }
    const out = new Map<string, BulkInstanceInfo | null>();
    await Promise.all(
      [...byPart].map(async ([part, owned]) => {
        try {
          const answer = await part.instances.instanceMetadataBulk!(ctx, owned);
          for (const node of owned) {
            const info = answer.get(nodeName(node));
            if (info !== undefined) out.set(nodeName(node), info);
          }
        } catch (error) {
          if (isError(error, NotImplementedError)) return;
          for (const node of owned) bulkFailures.set(node, { part: part.name, error });
        }
      }),
    );
    return out;
  };
  return instances;
}
