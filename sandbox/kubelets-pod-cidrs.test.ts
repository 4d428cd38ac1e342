import { describe, expect, test } from "bun:test";
import { cidrContains, parseCIDR } from "../net/cidr.ts";
import { podCIDRsOf, registrationOf } from "./kubelets.ts";
import { SANDBOX_CLUSTER_CIDR } from "./names.ts";

const v4 = [{ type: "InternalIP" as const, address: "10.0.0.1" }];
const dual = [...v4, { type: "InternalIP" as const, address: "fd00::1" }];

describe("the sandbox kubelets' pod CIDRs", () => {
  test.each([
    ["an IPv4 machine gets one /24", v4, 0, ["10.128.0.0/24"]],
    ["the 257th node's /24 is in the next /16", v4, 257, ["10.129.1.0/24"]],
    ["a machine with an IPv6 address gets a /24 and a /64, IPv4 first", dual, 0, ["10.128.0.0/24", "fd00:10:128::/64"]],
    ["the /64 follows the node's index in hexadecimal", dual, 300, ["10.129.44.0/24", "fd00:10:128:12c::/64"]],
    [
      "an IPv6 Hostname does not make a machine dual-stack",
      [{ type: "Hostname" as const, address: "a:b" }],
      1,
      ["10.128.1.0/24"],
    ],
  ])("%s", (_name, addresses, i, expected) => {
    const cidrs = podCIDRsOf({ addresses }, i);
    expect(cidrs).toEqual(expected);
    const cluster = SANDBOX_CLUSTER_CIDR.split(",").map(parseCIDR);
    for (const cidr of cidrs) {
      const { family, network } = parseCIDR(cidr);
      expect(cluster.some((c) => cidrContains(c, { family, value: network }))).toBe(true);
    }
  });

  test.each([
    ["no pod CIDR", undefined, {}],
    ["one pod CIDR as a string", "10.128.0.0/24", { podCIDR: "10.128.0.0/24", podCIDRs: ["10.128.0.0/24"] }],
    [
      "dual stack: the first is spec.podCIDR",
      ["10.128.0.0/24", "fd00:10:128::/64"],
      { podCIDR: "10.128.0.0/24", podCIDRs: ["10.128.0.0/24", "fd00:10:128::/64"] },
    ],
  ])("a registration with %s", (_name, podCIDRs, expected) => {
    const node = registrationOf({ id: "m-1", name: "node-1" }, new Date(0), podCIDRs);
    expect({ podCIDR: node.spec?.podCIDR, podCIDRs: node.spec?.podCIDRs }).toEqual({
      podCIDR: undefined,
      podCIDRs: undefined,
      ...expected,
    });
  });
});
