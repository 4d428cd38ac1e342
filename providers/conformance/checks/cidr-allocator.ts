/**
 * CidrAllocator (the `CloudAllocator` node IPAM type): a machine's pod ranges are CIDRs a Node can carry, and a
 * deleted machine is `InstanceNotFoundError`.
 */
import { tryParseCIDR } from "../../../net/cidr.ts";
import type { CidrAllocator } from "../../cloud.ts";
import { answer, must, mustThrowInstanceNotFound, show } from "../contract.ts";
import { nodeByProviderID } from "../fixtures.ts";
import type { Check, CheckContext } from "../types.ts";

function allocator(t: CheckContext): CidrAllocator {
  const api = t.provider.cidrAllocator;
  must(api !== undefined, "provider.cidrAllocator disappeared between reads; a capability must not change");
  return api;
}

export const cidrAllocatorChecks: readonly Check[] = [
  {
    id: "cidrAllocator/shape",
    capability: "cidrAllocator",
    title: "podCIDRs of a running machine answers CIDRs, at most one per IP family (none: not assigned yet)",
    async run(t) {
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      const node = nodeByProviderID(m);
      const cidrs = await answer(`cidrAllocator.podCIDRs(${m.providerID})`, () => allocator(t).podCIDRs(t.ctx, node));
      must(Array.isArray(cidrs), `podCIDRs must answer a list; got ${show(cidrs)}`);
      must(cidrs.length <= 2, `podCIDRs must answer at most two CIDRs, one per IP family; got ${show(cidrs)}`);
      const parsed = cidrs.map((c) => (typeof c === "string" ? tryParseCIDR(c) : undefined));
      must(
        parsed.every((c) => c !== undefined),
        `podCIDRs must answer CIDR strings; got ${show(cidrs)}`,
      );
      must(
        new Set(parsed.map((c) => c?.family)).size === parsed.length,
        `podCIDRs must answer at most one CIDR per IP family; got ${show(cidrs)}`,
      );
    },
  },
  {
    id: "cidrAllocator/deleted",
    capability: "cidrAllocator",
    title: "podCIDRs of a deleted machine throws InstanceNotFoundError",
    async run(t) {
      const m = await t.arrange.createMachine({ name: t.uniqueName() });
      await t.arrange.deleteMachine(m);
      await mustThrowInstanceNotFound(`cidrAllocator.podCIDRs(${m.providerID}) of a deleted machine`, () =>
        allocator(t).podCIDRs(t.ctx, nodeByProviderID(m)),
      );
    },
  },
];
