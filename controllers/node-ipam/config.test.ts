import { describe, expect, test } from "bun:test";
import { formatCIDR } from "../../net/cidr.ts";
import { type NodeIpamFlags, nodeIpamConfig } from "./config.ts";

const flags = (tweaks: Partial<NodeIpamFlags>): NodeIpamFlags => ({
  clusterCIDR: "10.244.0.0/16",
  cidrAllocatorType: "RangeAllocator",
  nodeCIDRMaskSize: 0,
  nodeCIDRMaskSizeIPv4: 0,
  nodeCIDRMaskSizeIPv6: 0,
  serviceClusterIPRange: "",
  ...tweaks,
});

describe("nodeIpamConfig", () => {
  test.each([
    ["IPv4 defaults to /24", {}, [24]],
    ["IPv6 defaults to /64", { clusterCIDR: "fd00::/48" }, [64]],
    ["dual stack defaults per family, in --cluster-cidr order", { clusterCIDR: "fd00::/48,10.0.0.0/8" }, [64, 24]],
    ["--node-cidr-mask-size for a single stack", { nodeCIDRMaskSize: 26 }, [26]],
    ["--node-cidr-mask-size-ipv4 for IPv4", { nodeCIDRMaskSizeIPv4: 25 }, [25]],
    ["--node-cidr-mask-size-ipv6 for IPv6", { clusterCIDR: "fd00::/56", nodeCIDRMaskSizeIPv6: 72 }, [72]],
    [
      "both family flags for dual stack",
      { clusterCIDR: "10.0.0.0/8,fd00::/56", nodeCIDRMaskSizeIPv4: 20, nodeCIDRMaskSizeIPv6: 68 },
      [20, 68],
    ],
  ] as const)("%s", (_name, tweaks, masks) => {
    expect(nodeIpamConfig(flags(tweaks)).nodeMaskSizes).toEqual([...masks]);
  });

  test.each([
    [
      "no --cluster-cidr",
      { clusterCIDR: "" },
      "Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set",
    ],
    ["an unknown allocator type", { cidrAllocatorType: "Bogus" }, "invalid CIDR allocator type: Bogus"],
    [
      "--node-cidr-mask-size with dual stack",
      { clusterCIDR: "10.0.0.0/8,fd00::/48", nodeCIDRMaskSize: 24 },
      "usage of --node-cidr-mask-size is not allowed with dual-stack clusters",
    ],
    [
      "--node-cidr-mask-size with a family flag",
      { nodeCIDRMaskSize: 24, nodeCIDRMaskSizeIPv4: 24 },
      "is not allowed if --node-cidr-mask-size is set",
    ],
    [
      "--node-cidr-mask-size-ipv4 for single-stack IPv6",
      { clusterCIDR: "fd00::/48", nodeCIDRMaskSizeIPv4: 24 },
      "usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster",
    ],
    [
      "--node-cidr-mask-size-ipv6 for single-stack IPv4",
      { nodeCIDRMaskSizeIPv6: 64 },
      "usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster",
    ],
    [
      "a node mask wider than the cluster CIDR",
      { clusterCIDR: "10.244.0.0/25" },
      "mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family",
    ],
    ["a node mask past the family's bits", { nodeCIDRMaskSize: 40 }, "must be between 16 and 32"],
    ["an IPv6 split into more than 2^16 subnets", { clusterCIDR: "fd00::/32" }, "the node CIDR size is too big"],
    ["three service ranges", { serviceClusterIPRange: "10.96.0.0/12,fd00::/108,10.0.0.0/8" }, "more than two entries"],
    ["an unparsable service range", { serviceClusterIPRange: "ten" }, "--service-cluster-ip-range is invalid"],
  ] as const)("refuses %s", (_name, tweaks, message) => {
    expect(() => nodeIpamConfig(flags(tweaks))).toThrow(message);
  });

  test("reads the service ranges", () => {
    const config = nodeIpamConfig(flags({ serviceClusterIPRange: "10.96.0.0/12,fd00::/108" }));
    expect(config.serviceCIDRs.map(formatCIDR)).toEqual(["10.96.0.0/12", "fd00::/108"]);
  });
});
