import { describe, expect, test } from "bun:test";
import {
  CidrParseError,
  ClusterCIDRError,
  cidrContains,
  formatCIDR,
  formatIP,
  lastAddress,
  parseCIDR,
  parseClusterCIDRs,
  parseIP,
  tryParseCIDR,
} from "./cidr.ts";
import { formatGoDuration, goQuote, goStringSlice } from "./go-format.ts";

describe("parseCIDR", () => {
  test.each([
    ["10.0.0.1/24", "10.0.0.0/24"],
    ["10.0.0.0/8", "10.0.0.0/8"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["192.168.0.0/0", "0.0.0.0/0"],
    ["10.0.0.1/32", "10.0.0.1/32"],
    ["010.000.0.1/24", "10.0.0.0/24"], // sloppy: leading zeros are decimal
    ["10.0.0.0/024", "10.0.0.0/24"],
    ["2001:DB8::1/32", "2001:db8::/32"],
    ["fd00::/8", "fd00::/8"],
    ["::/0", "::/0"],
    ["2001:db8:0:0:1:0:0:1/128", "2001:db8::1:0:0:1/128"],
    ["2001:0:0:1:0:0:0:1/128", "2001:0:0:1::1/128"],
    ["2001:db8:0:1:1:1:1:1/128", "2001:db8:0:1:1:1:1:1/128"],
    ["::ffff:10.1.2.3/120", "10.1.2.0/24"], // IPv4-mapped prints and behaves as IPv4
    ["::1.2.3.4/128", "::102:304/128"],
  ])("normalises %s to %s", (text, want) => {
    expect(formatCIDR(parseCIDR(text))).toBe(want);
  });

  test.each([
    "10.0.0.1",
    "10.0.0.1/33",
    "10.0.0.256/24",
    "10.0.0/24",
    "foo.bar",
    "*",
    "",
    " 10.0.0.0/8",
    "10.0.0.0/8 ",
    "10.0.0.0/-1",
    "10.0.0.0/+8",
    "fe80::1%eth0/64",
    "1::2::3/64",
    "1:2:3:4:5:6:7:8:9/64",
    "1:2:3/64",
    "2001:db8::/129",
    "1.2.3.4::/64",
    "12345::/64",
  ])("rejects %p with Go's message", (text) => {
    expect(() => parseCIDR(text)).toThrow(new CidrParseError(text));
    expect(() => parseCIDR(text)).toThrow(`invalid CIDR address: ${text}`);
    expect(tryParseCIDR(text)).toBeUndefined();
  });

  test("gives the last address of a network", () => {
    expect(formatIP({ family: 4, value: lastAddress(parseCIDR("10.244.1.0/24")) })).toBe("10.244.1.255");
    expect(formatIP({ family: 6, value: lastAddress(parseCIDR("fd00:1::/64")) })).toBe("fd00:1::ffff:ffff:ffff:ffff");
  });

  test("contains only addresses of its own family", () => {
    const net = parseCIDR("10.0.0.0/8");
    expect(cidrContains(net, parseIP("10.255.0.1")!)).toBe(true);
    expect(cidrContains(net, parseIP("11.0.0.1")!)).toBe(false);
    expect(cidrContains(net, parseIP("::ffff:10.1.1.1")!)).toBe(true);
    expect(cidrContains(parseCIDR("::/0"), parseIP("10.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCIDR("fd00::/8"), parseIP("fd12::1")!)).toBe(true);
  });

  test("parses addresses and refuses non-addresses", () => {
    expect(parseIP("1.2.3.4")).toEqual({ family: 4, value: 0x01020304n });
    expect(parseIP("::1")).toEqual({ family: 6, value: 1n });
    expect(parseIP("1.2.3")).toBeUndefined();
    expect(parseIP("gg::1")).toBeUndefined();
  });
});

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

describe("Go spellings", () => {
  test.each([
    [0, "0s"],
    [0.000001, "1ns"],
    [0.00085, "850ns"],
    [0.0015, "1.5µs"],
    [12.345, "12.345ms"],
    [1000, "1s"],
    [2500, "2.5s"],
    [60_000, "1m0s"],
    [90_000, "1m30s"],
    [7_200_500, "2h0m0.5s"],
    [-1500, "-1.5s"],
  ])("formats %p ms as %p", (ms, want) => {
    expect(formatGoDuration(ms)).toBe(want);
  });

  test("quotes and lists like %q and %v", () => {
    expect(goQuote('a"b\\c\n\x01é')).toBe('"a\\"b\\\\c\\n\\x01é"');
    expect(goStringSlice(["a", "b"])).toBe("[a b]");
    expect(goStringSlice([])).toBe("[]");
  });
});
