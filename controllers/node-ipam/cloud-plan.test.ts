import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { type CloudPlan, cloudSkipReason, planCloudAnswer } from "./cloud-plan.ts";

const node = (spec: Node["spec"] = {}): Node => ({ metadata: { name: "n1" }, spec });

describe("cloudSkipReason", () => {
  const cases: { name: string; node: Node; reason: string | undefined }[] = [
    {
      name: "asks about a Node with a provider ID and no pod CIDRs",
      node: node({ providerID: "sandbox://m-1" }),
      reason: undefined,
    },
    {
      name: "leaves a Node that has pod CIDRs, which cannot change",
      node: node({ providerID: "sandbox://m-1", podCIDRs: ["10.0.0.0/24"] }),
      reason: "it has pod CIDRs",
    },
    {
      name: "leaves a Node with only the legacy podCIDR",
      node: node({ providerID: "sandbox://m-1", podCIDR: "10.0.0.0/24" }),
      reason: "it has pod CIDRs",
    },
    { name: "waits for a Node's provider ID", node: node(), reason: "it has no provider ID yet" },
  ];
  for (const c of cases) test(c.name, () => expect(cloudSkipReason(c.node)).toBe(c.reason));
});

describe("planCloudAnswer", () => {
  const cases: { name: string; answer: string[]; plan: CloudPlan }[] = [
    { name: "writes one IPv4 range", answer: ["10.244.3.0/24"], plan: { kind: "write", cidrs: ["10.244.3.0/24"] } },
    {
      name: "writes a dual-stack pair in the cloud's order",
      answer: ["fd00:10:244:3::/64", "10.244.3.0/24"],
      plan: { kind: "write", cidrs: ["fd00:10:244:3::/64", "10.244.3.0/24"] },
    },
    {
      name: "normalises a range given with host bits, as upstream's IPNet.String()",
      answer: ["10.244.3.7/24"],
      plan: { kind: "write", cidrs: ["10.244.3.0/24"] },
    },
    {
      name: "records CIDRNotAvailable when the cloud has assigned none",
      answer: [],
      plan: {
        kind: "unavailable",
        problem: "failed to allocate cidr: the cloud has assigned node n1 no pod CIDRs",
        event: { type: "Normal", reason: "CIDRNotAvailable", message: "Node n1 status is now: CIDRNotAvailable" },
      },
    },
    {
      name: "refuses what is not a CIDR, naming it",
      answer: ["10.244.3.0"],
      plan: {
        kind: "invalid",
        problem: 'the cloud\'s pod CIDRs for node n1 (10.244.3.0) cannot be used: "10.244.3.0" is not a CIDR',
      },
    },
    {
      name: "refuses two of one family",
      answer: ["10.244.3.0/24", "10.244.4.0/24"],
      plan: {
        kind: "invalid",
        problem: "the cloud's pod CIDRs for node n1 (10.244.3.0/24,10.244.4.0/24) cannot be used: two of one IP family",
      },
    },
    {
      name: "refuses more than two",
      answer: ["10.0.0.0/24", "fd00::/64", "10.0.1.0/24"],
      plan: {
        kind: "invalid",
        problem:
          "the cloud's pod CIDRs for node n1 (10.0.0.0/24,fd00::/64,10.0.1.0/24) cannot be used: a Node carries at most two, one per IP family",
      },
    },
  ];
  for (const c of cases) test(c.name, () => expect(planCloudAnswer(node(), c.answer)).toEqual(c.plan));
});
