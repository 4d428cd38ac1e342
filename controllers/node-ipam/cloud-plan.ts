/**
 * The cloud allocator's decisions (upstream: the `CloudAllocator` node IPAM type; GCE's cloud_cidr_allocator.go
 * `updateCIDRAllocation`), on plain values: a Node and the pod CIDRs the provider's `cidrAllocator` answered for it.
 * The cloud owns the ranges, so there is nothing to reserve or free here. No I/O, no clock.
 */
import type { Node } from "../../kube/objects.ts";
import { formatCIDR, tryParseCIDR } from "../../net/cidr.ts";
import { IpamEvents, type NodeStatusEvent, nodeStatusEvent } from "./plan.ts";

const nameOf = (node: Node) => node.metadata?.name ?? "";

/**
 * Why the cloud is not asked about the Node, or `undefined` to ask: a Node with pod CIDRs keeps them (they cannot
 * change once set); a Node without a provider ID cannot be found in the cloud yet (the cloud-node controller sets
 * it, and that update brings the Node back).
 */
export function cloudSkipReason(node: Node): string | undefined {
  if ((node.spec?.podCIDRs ?? []).length > 0 || node.spec?.podCIDR) return "it has pod CIDRs";
  if (!node.spec?.providerID) return "it has no provider ID yet";
  return undefined;
}

export type CloudPlan =
  /** Write these, normalised, IPv4-or-IPv6 order as the cloud gave them (see `podCIDRPatch`). */
  | { readonly kind: "write"; readonly cidrs: readonly string[] }
  /** The cloud has assigned none yet: record the event and ask again later. */
  | { readonly kind: "unavailable"; readonly problem: string; readonly event: NodeStatusEvent }
  /** The provider answered something no Node can carry: nothing is written; ask again later. */
  | { readonly kind: "invalid"; readonly problem: string };

/** What to write for the cloud's answer about `node`. */
export function planCloudAnswer(node: Node, answer: readonly string[]): CloudPlan {
  const name = nameOf(node);
  if (answer.length === 0) {
    return {
      kind: "unavailable",
      problem: `failed to allocate cidr: the cloud has assigned node ${name} no pod CIDRs`,
      event: nodeStatusEvent(name, IpamEvents.notAvailable),
    };
  }
  const invalid = (why: string): CloudPlan => ({
    kind: "invalid",
    problem: `the cloud's pod CIDRs for node ${name} (${answer.join(",")}) cannot be used: ${why}`,
  });
  if (answer.length > 2) return invalid("a Node carries at most two, one per IP family");
  const cidrs = answer.map((text) => tryParseCIDR(text));
  const bad = answer.find((_, i) => cidrs[i] === undefined);
  if (bad !== undefined) return invalid(`${JSON.stringify(bad)} is not a CIDR`);
  if (new Set(cidrs.map((c) => c?.family)).size < cidrs.length) return invalid("two of one IP family");
  return { kind: "write", cidrs: cidrs.map((c) => formatCIDR(c as NonNullable<typeof c>)) };
}
