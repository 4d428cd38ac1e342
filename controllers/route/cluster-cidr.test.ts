import { describe, expect, test } from "bun:test";
import { formatCIDR } from "../../net/cidr.ts";
import { ClusterCIDRError, parseClusterCIDRs } from "./cluster-cidr.ts";

describe("parseClusterCIDRs", () => {
  test.each([
    ["10.244.0.0/16", ["10.244.0.0/16"]],
    ["  10.244.0.0/16  ", ["10.244.0.0/16"]],
    ["10.244.0.0/16,fd00::/48", ["10.244.0.0/16", "fd00::/48"]],
    ["fd00::/48,10.244.0.0/16", ["fd00::/48", "10.244.0.0/16"]],
  ])("accepts %p", (flag, want) => {
    expect(parseClusterCIDRs(flag).map(formatCIDR)).toEqual(want);
  });

  test.each([
    ["", 'failed to parse cidr value:"" with error:invalid CIDR address: '],
    ["   ", 'failed to parse cidr value:"" with error:invalid CIDR address: '],
    ["10.0.0.0/8, fd00::/8", 'failed to parse cidr value:" fd00::/8" with error:invalid CIDR address:  fd00::/8'],
    ["10.0.0.0/8,", 'failed to parse cidr value:"" with error:invalid CIDR address: '],
    ["10.0.0.1", 'failed to parse cidr value:"10.0.0.1" with error:invalid CIDR address: 10.0.0.1'],
    [
      "10.0.0.0/8,192.168.0.0/16",
      "len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily",
    ],
    [
      "fd00::/8,fd01::/16,fd02::/16",
      "len of ClusterCIDRs==3 and they are not configured as dual stack (at least one from each IPFamily",
    ],
    ["10.0.0.0/8,fd00::/8,192.168.0.0/16", "length of clusterCIDRs is:3 more than max allowed of 2"],
  ])("refuses %p with upstream's start error", (flag, message) => {
    expect(() => parseClusterCIDRs(flag)).toThrow(new ClusterCIDRError(message));
  });
});
