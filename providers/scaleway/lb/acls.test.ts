import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../../kube/objects.ts";
import { aclAllowList, aclSpecs, aclsEqual } from "./acls.ts";

const node = (n: number): Node => ({
  metadata: { name: `n${n}` },
  status: { addresses: [{ type: "ExternalIP", address: `51.15.${Math.floor(n / 250)}.${n % 250}` }] },
});
const svc = (ranges: string[]): Service => ({ metadata: { name: "web" }, spec: { loadBalancerSourceRanges: ranges } });

describe("source ranges as access lists", () => {
  test("no range, no list", () => {
    expect(aclAllowList(svc([]), [node(1)], [])).toEqual([]);
    expect(aclSpecs("f", [])).toEqual([]);
  });

  test("the Nodes and the ranges are allowed, /32 and /128 as bare addresses, then everything else denied", () => {
    const allow = aclAllowList(svc(["203.0.113.0/24", "198.51.100.7/32", "2001:db8::1/128"]), [node(1)], []);
    expect(allow).toEqual(["198.51.100.7", "2001:db8::1", "203.0.113.0/24", "51.15.0.1"]);
    expect(aclSpecs("f", allow)).toEqual([
      { name: "f-lb-source-range-0", index: 0, action: "allow", ipSubnet: allow },
      { name: "f-lb-source-range-end", index: 1, action: "deny", ipSubnet: ["0.0.0.0/0", "::/0"] },
    ]);
  });

  test("at most 60 entries a rule", () => {
    const nodes = Array.from({ length: 61 }, (_, i) => node(i + 1));
    const specs = aclSpecs("f", aclAllowList(svc(["10.0.0.0/8"]), nodes, []));
    expect(specs.map((s) => [s.name, s.ipSubnet.length])).toEqual([
      ["f-lb-source-range-0", 60],
      ["f-lb-source-range-1", 2],
      ["f-lb-source-range-end", 2],
    ]);
  });

  test("a range that is no CIDR is left out with a warning", () => {
    const warnings: string[] = [];
    expect(aclAllowList(svc(["nope", "10.0.0.0/8"]), [], warnings)).toEqual(["10.0.0.0/8"]);
    expect(warnings).toEqual(["spec.loadBalancerSourceRanges: nope is not a CIDR and is left out"]);
  });

  test("lists are compared in index order", () => {
    const want = aclSpecs("f", ["10.0.0.0/8"]);
    expect(aclsEqual([...want].reverse(), want)).toBe(true);
    expect(aclsEqual(want.slice(1), want)).toBe(false);
  });
});
