/**
 * The range allocator's decisions (upstream: pkg/controller/nodeipam/ipam/range_allocator.go), on plain values: Nodes
 * and the allocator's CIDR sets, one per cluster CIDR in `--cluster-cidr` order. Set `i` holds a Node's
 * `spec.podCIDRs[i]`. The sets are the allocator's memory; these functions change them and answer what the runner
 * must write. No I/O, no clock.
 */
import type { Node } from "../../kube/objects.ts";
import { type Cidr, formatCIDR, tryParseCIDR } from "../../net/cidr.ts";
import type { CidrSet } from "./cidr-set.ts";

/** Upstream's Node status-change events (`RecordNodeStatusChange`: Normal, "Node <name> status is now: <reason>"). */
export const IpamEvents = {
  notAvailable: "CIDRNotAvailable",
  assignmentFailed: "CIDRAssignmentFailed",
} as const;

export interface NodeStatusEvent {
  readonly type: "Normal";
  readonly reason: string;
  readonly message: string;
}

export const nodeStatusEvent = (node: string, reason: string): NodeStatusEvent => ({
  type: "Normal",
  reason,
  message: `Node ${node} status is now: ${reason}`,
});

const nameOf = (node: Node) => node.metadata?.name ?? "";
const podCIDRsOf = (node: Node): readonly string[] => node.spec?.podCIDRs ?? [];

/**
 * Marks a Node's pod CIDRs taken (upstream: `occupyCIDRs`). Answers the problem, if any: an unparsable CIDR, one
 * at an index with no cluster CIDR (the cluster went from dual to single stack), or one outside its cluster CIDR.
 * CIDRs before the faulty one stay taken, as upstream's.
 */
export function occupyNode(node: Node, sets: readonly CidrSet[]): string | undefined {
  return eachPodCIDR(
    node,
    sets,
    (set, cidr) => set.occupy(cidr),
    (cidr, i, err) => `failed to mark cidr[${cidr}] at idx [${i}] as occupied for node: ${nameOf(node)}: ${err}`,
  );
}

/** Frees a deleted Node's pod CIDRs (upstream: `ReleaseCIDR`); answers the problem, if any. */
export function releaseNode(node: Node, sets: readonly CidrSet[]): string | undefined {
  return eachPodCIDR(
    node,
    sets,
    (set, cidr) => set.release(cidr),
    (cidr, _i, err) => `error when releasing CIDR ${cidr}: ${err}`,
  );
}

function eachPodCIDR(
  node: Node,
  sets: readonly CidrSet[],
  apply: (set: CidrSet, cidr: Cidr) => void,
  failure: (cidr: string, index: number, error: string) => string,
): string | undefined {
  const name = nameOf(node);
  const cidrs = podCIDRsOf(node);
  for (const [i, text] of cidrs.entries()) {
    const cidr = tryParseCIDR(text);
    if (!cidr) return `failed to parse node ${name}, CIDR ${text}`;
    const set = sets[i];
    if (!set) {
      return `node:${name} has an allocated cidr: ${text} at index:${i} that does not exist in cluster cidrs configuration`;
    }
    try {
      apply(set, cidr);
    } catch (err) {
      return failure(formatCIDR(cidr), i, (err as Error).message);
    }
  }
  return undefined;
}

/** Marks every node subnet inside a Service CIDR taken, in the sets it overlaps (upstream: `filterOutServiceRange`). */
export function reserveServiceCIDRs(sets: readonly CidrSet[], serviceCIDRs: readonly Cidr[]): void {
  for (const service of serviceCIDRs) {
    for (const set of sets) {
      try {
        set.occupy(service);
      } catch {
        // Not overlapping this cluster CIDR: nothing to keep out of it.
      }
    }
  }
}

export type NodePlan =
  /** The Node has pod CIDRs: they are now marked taken (or could not be: `problem`). Nothing to write. */
  | { readonly kind: "occupied"; readonly problem?: string }
  /** Subnets taken for the Node, one per cluster CIDR: write them (see `podCIDRPatch`). */
  | { readonly kind: "allocate"; readonly cidrs: readonly string[] }
  /** A cluster CIDR is full: nothing taken, record the event, try again later. */
  | { readonly kind: "unavailable"; readonly problem: string; readonly event: NodeStatusEvent };

/**
 * What a Node needs (upstream: `AllocateOrOccupyCIDR`): a Node with pod CIDRs gets them marked taken; a Node without
 * gets the next free subnet of every cluster CIDR. When one set is full, the subnets already taken from the others
 * are freed again (upstream keeps them until a restart).
 */
export function planNode(node: Node, sets: readonly CidrSet[]): NodePlan {
  if (podCIDRsOf(node).length > 0) {
    const problem = occupyNode(node, sets);
    return problem ? { kind: "occupied", problem } : { kind: "occupied" };
  }
  const taken: { set: CidrSet; cidr: Cidr }[] = [];
  for (const [i, set] of sets.entries()) {
    try {
      taken.push({ set, cidr: set.allocateNext() });
    } catch (err) {
      for (const t of taken) t.set.release(t.cidr);
      return {
        kind: "unavailable",
        problem: `failed to allocate cidr from cluster cidr at idx:${i}: ${(err as Error).message}`,
        event: nodeStatusEvent(nameOf(node), IpamEvents.notAvailable),
      };
    }
  }
  return { kind: "allocate", cidrs: taken.map((t) => formatCIDR(t.cidr)) };
}

export type WriteDecision =
  /** Write the reserved CIDRs. */
  | "write"
  /** The Node already carries exactly them (an earlier write went through): done. */
  | "already-set"
  /** The Node got other CIDRs meanwhile, or is gone: free the reservation, never change a Node's CIDRs. */
  | "release";

/** Just before writing, with the Node as it is now (upstream: `updateCIDRsAllocation`). */
export function writeDecision(current: Node | undefined, reserved: readonly string[]): WriteDecision {
  if (!current) return "release";
  const existing = podCIDRsOf(current);
  if (existing.length === 0) return "write";
  const same = existing.length === reserved.length && existing.every((c, i) => c === reserved[i]);
  return same ? "already-set" : "release";
}

/** Frees reserved subnets (a write that was not made); CIDRs this allocator did not hand out are ignored. */
export function releaseReserved(sets: readonly CidrSet[], reserved: readonly string[]): void {
  for (const [i, text] of reserved.entries()) {
    const cidr = tryParseCIDR(text);
    if (!cidr) continue;
    try {
      sets[i]?.release(cidr);
    } catch {
      // Not from this set: nothing was reserved.
    }
  }
}

/** The patch upstream writes (`PatchNodeCIDRs`): the legacy single field is the first of the list. */
export const podCIDRPatch = (cidrs: readonly string[]) => ({ spec: { podCIDR: cidrs[0], podCIDRs: [...cidrs] } });
