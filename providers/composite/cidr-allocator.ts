/**
 * The composite's pod-range allocator (`--cidr-allocator-type=CloudAllocator`): each Node is asked of the part
 * that owns its provider ID. Offered only when every Node-serving part offers one, so no Node is left without
 * ranges because its cloud has no notion of them.
 */
import type { CidrAllocator } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { foreignText, type NodePart, routeNode } from "./routing.ts";

export interface AllocatingPart extends NodePart {
  readonly cidrAllocator: CidrAllocator | undefined;
}

export function compositeCidrAllocator(parts: readonly AllocatingPart[]): CidrAllocator | undefined {
  if (parts.length === 0 || parts.some((p) => p.cidrAllocator === undefined)) return undefined;
  return {
    async podCIDRs(ctx, node) {
      const route = routeNode(parts, node);
      if (route.kind === "part") return (route.part.cidrAllocator as CidrAllocator).podCIDRs(ctx, node);
      const name = node.metadata?.name ?? "";
      // The allocator is asked only once a Node has a provider ID; one of no part's is not ours to answer.
      const why = route.kind === "foreign" ? foreignText(parts, route.providerID, route.scheme) : "no provider ID yet";
      throw new InstanceNotFoundError(`composite.podCIDRs: node ${name}: ${why}`);
    },
  };
}
