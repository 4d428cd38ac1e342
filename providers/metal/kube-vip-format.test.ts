import { describe, expect, test } from "bun:test";
import { formatRange } from "./address-ranges.ts";
import { parseKubeVipConfigMap } from "./kube-vip-format.ts";
import { emptyPoolSet, overlayPools, poolFor, shareAllowed } from "./pools.ts";

const source = "ConfigMap kube-system/kubevip";
const rangesOf = (data: Record<string, string>, scope: string) =>
  parseKubeVipConfigMap(data, source).set.pools.get(scope)?.ranges.map(formatRange);

describe("the kube-vip ConfigMap format", () => {
  test.each([
    ["cidr-global", { "cidr-global": "192.0.2.0/29" }, "global", ["192.0.2.0-192.0.2.7"]],
    ["range-global", { "range-global": "192.0.2.200-192.0.2.202" }, "global", ["192.0.2.200-192.0.2.202"]],
    [
      "comma-separated, overlapping, mixed families",
      { "range-global": "192.0.2.10-192.0.2.11, 192.0.2.10-192.0.2.13,2001:db8::1-2001:db8::2" },
      "global",
      ["192.0.2.10-192.0.2.13", "2001:db8::1-2001:db8::2"],
    ],
    ["a namespace pool", { "cidr-team-a": "198.51.100.0/30" }, "team-a", ["198.51.100.0-198.51.100.3"]],
    [
      "cidr- and range- of one scope combined",
      { "cidr-team-a": "198.51.100.0/31", "range-team-a": "198.51.100.9-198.51.100.10" },
      "team-a",
      ["198.51.100.0-198.51.100.1", "198.51.100.9-198.51.100.10"],
    ],
    [
      "skip-end-ips-in-cidr drops IPv4 network and broadcast",
      { "cidr-global": "192.0.2.0/29", "skip-end-ips-in-cidr": "true" },
      "global",
      ["192.0.2.1-192.0.2.6"],
    ],
    ["IPv6 CIDRs", { "cidr-global": "2001:db8::/126" }, "global", ["2001:db8::-2001:db8::3"]],
  ])("reads %s", (_, data, scope, ranges) => {
    expect(rangesOf(data, scope)).toEqual(ranges);
  });

  test("reads allow-share, interface and search-order; kube-vip always skips .0 and .255", () => {
    const parsed = parseKubeVipConfigMap(
      {
        "cidr-global": "192.0.2.0/24",
        "allow-share-team-a": "true",
        "allow-share-global": "false",
        "interface-global": "eth1",
        "search-order": "desc",
      },
      source,
    );
    expect([...parsed.problems].sort()).toEqual([]);
    const global = parsed.set.pools.get("global")!;
    expect(global).toMatchObject({ descending: true, avoidBuggyIPs: true, interface: "eth1" });
    expect(global.source).toBe("ConfigMap kube-system/kubevip cidr-global");
    expect(shareAllowed(parsed.set, "team-a")).toBe(true);
    expect(shareAllowed(parsed.set, "team-b")).toBe(false);
  });

  test("a namespace pool wins over the global one; other namespaces fall back to global", () => {
    const { set } = parseKubeVipConfigMap(
      { "cidr-global": "192.0.2.0/29", "range-team-a": "198.51.100.1-198.51.100.2" },
      source,
    );
    expect(poolFor(set, "team-a")).toMatchObject({ kind: "pool", pool: { scope: "team-a" } });
    expect(poolFor(set, "team-b")).toMatchObject({ kind: "pool", pool: { scope: "global" } });
    expect(poolFor(parseKubeVipConfigMap({ "cidr-team-a": "192.0.2.0/30" }, source).set, "x")).toEqual({
      kind: "none",
    });
  });

  test("every problem is reported, naming the key; a scope with a bad entry is broken, not silently global", () => {
    const parsed = parseKubeVipConfigMap(
      {
        "cidr-global": "192.0.2.0/29",
        "cidr-team-a": "198.51.100.1/24,198.51.100.0/24",
        "range-team-b": "10.0.0.9-10.0.0.1",
        "range-team-c": "10.0.0.0/24",
        "cidr-team-d": "0.0.0.0/32",
        "allow-share-team-a": "yes",
        "search-order": "sideways",
        loadbalancerClass: "x",
      },
      source,
    );
    expect([...parsed.problems].sort()).toEqual(
      [
        'cidr-team-a: "198.51.100.1/24" has host bits set; did you mean 198.51.100.0/24?',
        'range-team-b: "10.0.0.9-10.0.0.1" ends before it starts',
        'range-team-c: "10.0.0.0/24" is not a range such as 192.0.2.10-192.0.2.20',
        'cidr-team-d: "0.0.0.0/32" asks for DHCP (kube-vip\'s 0.0.0.0/32); the metal provider allocates only from pools',
        'allow-share-team-a: "yes" is not a boolean; write true or false',
        'search-order: "sideways" must be asc or desc',
        "loadbalancerClass: not a kube-vip pool key (cidr-, range-, allow-share-, interface-); ignored",
      ].sort(),
    );
    expect(poolFor(parsed.set, "team-a")).toMatchObject({ kind: "broken", scope: "team-a" });
    expect(poolFor(parsed.set, "team-b")).toMatchObject({ kind: "broken" });
    expect(poolFor(parsed.set, "team-z")).toMatchObject({ kind: "pool", pool: { scope: "global" } });
  });

  test("ConfigMap scopes replace the cloud-config's of the same scope and keep the others", () => {
    const base = parseKubeVipConfigMap(
      { "cidr-global": "192.0.2.0/29", "cidr-team-a": "198.51.100.0/30" },
      "cloud-config",
    ).set;
    const override = parseKubeVipConfigMap(
      { "cidr-global": "203.0.113.0/30", "allow-share-global": "true" },
      source,
    ).set;
    const merged = overlayPools(base, override);
    expect(merged.pools.get("global")?.ranges.map(formatRange)).toEqual(["203.0.113.0-203.0.113.3"]);
    expect(merged.pools.get("team-a")?.ranges.map(formatRange)).toEqual(["198.51.100.0-198.51.100.3"]);
    expect(shareAllowed(merged, "team-a")).toBe(true);
    expect(overlayPools(emptyPoolSet, emptyPoolSet).pools.size).toBe(0);
  });
});
