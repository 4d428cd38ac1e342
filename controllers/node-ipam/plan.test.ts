import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { parseCIDR } from "../../net/cidr.ts";
import { CidrSet } from "./cidr-set.ts";
import {
  IpamEvents,
  occupyNode,
  planNode,
  podCIDRPatch,
  releaseNode,
  releaseReserved,
  reserveServiceCIDRs,
  writeDecision,
} from "./plan.ts";

const node = (name: string, ...podCIDRs: string[]): Node => ({
  metadata: { name },
  spec: podCIDRs[0] === undefined ? {} : { podCIDR: podCIDRs[0], podCIDRs },
});
const sets = (...clusters: [string, number][]) => clusters.map(([c, m]) => new CidrSet(parseCIDR(c), m));
const dualStack = () => sets(["10.244.0.0/22", 24], ["fd00:10:244::/62", 64]);

describe("planNode", () => {
  test("a Node without pod CIDRs gets one subnet of every cluster CIDR, IPv4 first as in --cluster-cidr", () => {
    const s = dualStack();
    expect(planNode(node("a"), s)).toEqual({ kind: "allocate", cidrs: ["10.244.0.0/24", "fd00:10:244::/64"] });
    expect(planNode(node("b"), s)).toEqual({ kind: "allocate", cidrs: ["10.244.1.0/24", "fd00:10:244:1::/64"] });
  });

  test("a Node with pod CIDRs is written nothing and its CIDRs are never handed out", () => {
    const s = dualStack();
    expect(planNode(node("a", "10.244.0.0/24", "fd00:10:244::/64"), s)).toEqual({ kind: "occupied" });
    expect(planNode(node("b"), s)).toEqual({ kind: "allocate", cidrs: ["10.244.1.0/24", "fd00:10:244:1::/64"] });
  });

  test("a full cluster CIDR records CIDRNotAvailable and frees what it took from the other", () => {
    const s = sets(["10.244.0.0/22", 24], ["fd00:10:244::/64", 64]);
    planNode(node("a"), s);
    const plan = planNode(node("b"), s);
    expect(plan).toEqual({
      kind: "unavailable",
      problem:
        "failed to allocate cidr from cluster cidr at idx:1: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range",
      event: { type: "Normal", reason: IpamEvents.notAvailable, message: "Node b status is now: CIDRNotAvailable" },
    });
    expect(s[0]?.allocated).toBe(1);
  });

  test("a Node whose pod CIDR lies outside the cluster CIDR is left alone, with the problem named", () => {
    const plan = planNode(node("a", "10.1.0.0/24"), dualStack());
    expect(plan).toEqual({
      kind: "occupied",
      problem:
        "failed to mark cidr[10.1.0.0/24] at idx [0] as occupied for node: a: cidr 10.1.0.0/24 is out the range of cluster cidr 10.244.0.0/22",
    });
  });
});

describe("occupyNode and releaseNode", () => {
  test.each([
    ["an unparsable CIDR", node("a", "ten"), "failed to parse node a, CIDR ten"],
    [
      "a second CIDR in a single-stack cluster",
      node("a", "10.244.0.0/24", "fd00::/64"),
      "node:a has an allocated cidr: fd00::/64 at index:1 that does not exist in cluster cidrs configuration",
    ],
  ])("occupy names %s", (_name, n, message) => {
    expect(occupyNode(n, sets(["10.244.0.0/16", 24]))).toBe(message);
  });

  test("a deleted Node's subnets are free again (round robin hands them out once the rest are)", () => {
    const s = sets(["10.244.0.0/23", 24]);
    occupyNode(node("a", "10.244.0.0/24"), s);
    occupyNode(node("b", "10.244.1.0/24"), s);
    expect(releaseNode(node("a", "10.244.0.0/24"), s)).toBeUndefined();
    expect(planNode(node("c"), s)).toEqual({ kind: "allocate", cidrs: ["10.244.0.0/24"] });
  });

  test("releasing a Node without pod CIDRs does nothing", () => {
    const s = sets(["10.244.0.0/23", 24]);
    expect(releaseNode(node("a"), s)).toBeUndefined();
    expect(s[0]?.allocated).toBe(0);
  });

  test("releasing names a CIDR outside the cluster CIDR", () => {
    expect(releaseNode(node("a", "10.1.0.0/24"), sets(["10.244.0.0/16", 24]))).toBe(
      "error when releasing CIDR 10.1.0.0/24: cidr 10.1.0.0/24 is out the range of cluster cidr 10.244.0.0/16",
    );
  });
});

describe("reserveServiceCIDRs", () => {
  test("keeps the Service range's subnets out of the cluster CIDRs it overlaps, and ignores the others", () => {
    const s = dualStack();
    reserveServiceCIDRs(s, [parseCIDR("10.244.0.0/24"), parseCIDR("10.96.0.0/12")]);
    expect(planNode(node("a"), s)).toEqual({ kind: "allocate", cidrs: ["10.244.1.0/24", "fd00:10:244::/64"] });
  });
});

describe("writeDecision", () => {
  test.each([
    ["the Node has no pod CIDRs", node("a"), "write"],
    ["the Node already carries exactly the reserved ones", node("a", "10.244.0.0/24"), "already-set"],
    ["the Node got other CIDRs meanwhile", node("a", "10.244.9.0/24"), "release"],
    ["the Node is gone", undefined, "release"],
  ] as const)("%s → %s", (_name, current, decision) => {
    expect(writeDecision(current, ["10.244.0.0/24"])).toBe(decision);
  });

  test("a reservation that is not written is freed", () => {
    const s = dualStack();
    const plan = planNode(node("a"), s);
    if (plan.kind !== "allocate") throw new Error("expected an allocation");
    releaseReserved(s, plan.cidrs);
    expect(s.map((x) => x.allocated)).toEqual([0, 0]);
  });
});

test("the patch sets podCIDR to the first of podCIDRs", () => {
  expect(podCIDRPatch(["10.244.0.0/24", "fd00::/64"])).toEqual({
    spec: { podCIDR: "10.244.0.0/24", podCIDRs: ["10.244.0.0/24", "fd00::/64"] },
  });
});
