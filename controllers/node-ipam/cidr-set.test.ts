import { describe, expect, test } from "bun:test";
import { formatCIDR, parseCIDR } from "../../net/cidr.ts";
import { CidrSet, CidrSetError, NO_CIDRS_REMAINING } from "./cidr-set.ts";

const set = (cluster: string, mask: number) => new CidrSet(parseCIDR(cluster), mask);
const next = (s: CidrSet) => formatCIDR(s.allocateNext());
const drain = (s: CidrSet, n: number) => Array.from({ length: n }, () => next(s));

describe("CidrSet", () => {
  test.each([
    ["IPv4 /16 into /24", "10.244.0.0/16", 24, ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]],
    ["IPv4 /30 into /32", "10.0.0.0/30", 32, ["10.0.0.0/32", "10.0.0.1/32", "10.0.0.2/32"]],
    ["IPv4 whole cluster as one subnet", "192.168.0.0/24", 24, ["192.168.0.0/24"]],
    ["IPv6 /56 into /64", "fd00:10:244::/56", 64, ["fd00:10:244::/64", "fd00:10:244:1::/64", "fd00:10:244:2::/64"]],
    ["IPv6 /112 into /120", "fd00::/112", 120, ["fd00::/120", "fd00::100/120", "fd00::200/120"]],
    ["IPv6 across the 64-bit half", "fd00::/60", 68, ["fd00::/68", "fd00:0:0:0:1000::/68", "fd00:0:0:0:2000::/68"]],
  ])("hands out subnets in order: %s", (_name, cluster, mask, expected) => {
    const s = set(cluster, mask);
    expect(drain(s, expected.length).map((c) => formatCIDR(parseCIDR(c)))).toEqual(
      expected.map((c) => formatCIDR(parseCIDR(c))),
    );
  });

  test("fails with upstream's message once every subnet is taken, and the count stays", () => {
    const s = set("10.0.0.0/23", 24);
    drain(s, 2);
    expect(() => s.allocateNext()).toThrow(new CidrSetError(NO_CIDRS_REMAINING));
    expect(s.allocated).toBe(2);
  });

  test("skips occupied subnets and never hands one out twice", () => {
    const s = set("10.0.0.0/22", 24);
    s.occupy(parseCIDR("10.0.1.0/24"));
    expect(drain(s, 3)).toEqual(["10.0.0.0/24", "10.0.2.0/24", "10.0.3.0/24"]);
    expect(() => s.allocateNext()).toThrow(NO_CIDRS_REMAINING);
  });

  test("a released subnet comes back only after the search has gone round (round robin)", () => {
    const s = set("10.0.0.0/22", 24);
    drain(s, 2);
    s.release(parseCIDR("10.0.0.0/24"));
    expect(drain(s, 3)).toEqual(["10.0.2.0/24", "10.0.3.0/24", "10.0.0.0/24"]);
  });

  test.each([
    ["a smaller CIDR takes the subnet holding it", "10.0.1.128/25", 1, ["10.0.1.0/24"]],
    ["a larger CIDR takes every subnet inside it", "10.0.2.0/23", 2, ["10.0.2.0/24", "10.0.3.0/24"]],
    ["a CIDR around the cluster takes them all", "10.0.0.0/8", 4, []],
  ])("occupy: %s", (_name, cidr, count, taken) => {
    const s = set("10.0.0.0/22", 24);
    s.occupy(parseCIDR(cidr));
    expect(s.allocated).toBe(count);
    for (const t of taken) expect(s.isTaken(parseCIDR(t))).toBe(true);
  });

  test("occupying twice and releasing twice count once", () => {
    const s = set("10.0.0.0/22", 24);
    s.occupy(parseCIDR("10.0.1.0/24"));
    s.occupy(parseCIDR("10.0.1.0/24"));
    expect(s.allocated).toBe(1);
    s.release(parseCIDR("10.0.1.0/24"));
    s.release(parseCIDR("10.0.1.0/24"));
    expect(s.allocated).toBe(0);
  });

  test.each([
    ["another network", "10.1.0.0/24"],
    ["the other family", "fd00::/64"],
  ])("refuses to occupy or release a CIDR outside the cluster CIDR: %s", (_name, cidr) => {
    const s = set("10.0.0.0/16", 24);
    expect(() => s.occupy(parseCIDR(cidr))).toThrow(`cidr ${cidr} is out the range of cluster cidr 10.0.0.0/16`);
    expect(() => s.release(parseCIDR(cidr))).toThrow(CidrSetError);
  });

  test.each([
    ["a node mask shorter than the cluster's", "10.0.0.0/16", 8, "must be between 16 and 32"],
    ["a node mask longer than the family's", "10.0.0.0/16", 33, "must be between 16 and 32"],
    ["an IPv6 split into more than 2^16 subnets", "fd00::/48", 65, "the node CIDR size is too big"],
    ["an IPv4 split into more than 2^24 subnets", "10.0.0.0/8", 33, "must be between 8 and 32"],
    ["an IPv4 split past our bitmap bound", "0.0.0.0/0", 25, "more than 2^24 subnets"],
  ])("refuses %s", (_name, cluster, mask, message) => {
    expect(() => set(cluster, mask)).toThrow(message);
  });

  test("reports to its observer as upstream's metrics count", () => {
    const calls: string[] = [];
    const s = new CidrSet(parseCIDR("10.0.0.0/23"), 24, {
      allocated: (l, n) => calls.push(`allocated ${l} ${n}`),
      released: (l, n) => calls.push(`released ${l} ${n}`),
      usage: (l, f) => calls.push(`usage ${l} ${f}`),
      tries: (l, n) => calls.push(`tries ${l} ${n}`),
      max: (l, n) => calls.push(`max ${l} ${n}`),
    });
    s.occupy(parseCIDR("10.0.0.0/24"));
    s.allocateNext();
    s.release(parseCIDR("10.0.0.0/23"));
    expect(calls).toEqual([
      "max 10.0.0.0/23 2",
      "usage 10.0.0.0/23 0",
      "allocated 10.0.0.0/23 1",
      "usage 10.0.0.0/23 0.5",
      "allocated 10.0.0.0/23 1",
      "tries 10.0.0.0/23 1",
      "usage 10.0.0.0/23 1",
      "released 10.0.0.0/23 2",
      "usage 10.0.0.0/23 0",
    ]);
  });
});
