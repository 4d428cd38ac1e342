import { describe, expect, test } from "bun:test";
import { CidrParseError, cidrContains, formatCIDR, lastAddress, parseCIDR, tryParseCIDR } from "./cidr.ts";
import { formatIP, parseIP } from "./ip.ts";

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
});
