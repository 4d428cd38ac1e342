import { describe, expect, test } from "bun:test";
import { cidrRange, formatRange, mergeRanges, parseAddressEntry, parseCIDR, parseRange } from "./address-ranges.ts";

describe("pool entries", () => {
  test.each([
    ["192.0.2.0/30", true, "192.0.2.1-192.0.2.2"],
    ["192.0.2.0/30", false, "192.0.2.0-192.0.2.3"],
    ["192.0.2.0/31", true, "192.0.2.0-192.0.2.1"],
    ["192.0.2.7/32", true, "192.0.2.7"],
    ["2001:db8::/126", true, "2001:db8::1-2001:db8::3"],
    ["2001:db8::/126", false, "2001:db8::-2001:db8::3"],
    ["2001:db8::5/128", true, "2001:db8::5"],
    ["192.0.2.10-192.0.2.20", true, "192.0.2.10-192.0.2.20"],
    ["192.0.2.10 - 192.0.2.10", true, "192.0.2.10"],
    ["2001:db8::a-2001:db8::f", true, "2001:db8::a-2001:db8::f"],
    ["192.0.2.9", true, "192.0.2.9"],
  ])("%p (skip CIDR ends %p) is %p", (entry, skip, range) => {
    const parsed = parseAddressEntry(entry, skip);
    expect(typeof parsed === "string" ? parsed : formatRange(parsed)).toBe(range);
  });

  test.each([
    ["192.0.2.1/24", /host bits set; did you mean 192.0.2.0\/24\?/],
    ["192.0.2.0/33", /invalid prefix length; use 0 to 32/],
    ["2001:db8::/129", /invalid prefix length; use 0 to 128/],
    ["192.0.2.0/", /invalid prefix length/],
    ["nope/24", /is not a CIDR/],
    ["192.0.2.20-192.0.2.10", /ends before it starts/],
    ["192.0.2.1-2001:db8::1", /mixes IPv4 and IPv6/],
    ["192.0.2.1-", /is not a range/],
    ["pool-a", /is not a range/],
    ["example", /is not a CIDR .*, a range .* or an address/],
  ])("%p is refused with the fix", (entry, reason) => {
    const parsed = parseAddressEntry(entry, true);
    expect(typeof parsed).toBe("string");
    expect(parsed as string).toMatch(reason);
  });

  test("parseCIDR and parseRange report their own shapes", () => {
    expect(parseCIDR("10.0.0.0/8")).toEqual({ family: 4, base: 0x0a000000n, prefix: 8 });
    expect(parseRange("10.0.0.1-10.0.0.2")).toEqual({ family: 4, start: 0x0a000001n, end: 0x0a000002n });
    const cidr = parseCIDR("10.0.0.0/8");
    if (typeof cidr === "string") throw new Error(cidr);
    expect(formatRange(cidrRange(cidr, true))).toBe("10.0.0.1-10.255.255.254");
  });

  test("overlapping and touching ranges merge per family, IPv4 first", () => {
    const entries = [
      "2001:db8::10-2001:db8::20",
      "192.0.2.10-192.0.2.20",
      "192.0.2.15-192.0.2.30",
      "192.0.2.31",
      "192.0.2.40-192.0.2.41",
      "2001:db8::1-2001:db8::5",
    ];
    const merged = mergeRanges(
      entries.map((e) => parseAddressEntry(e, true) as Exclude<ReturnType<typeof parseAddressEntry>, string>),
    );
    expect(merged.map(formatRange)).toEqual([
      "192.0.2.10-192.0.2.31",
      "192.0.2.40-192.0.2.41",
      "2001:db8::1-2001:db8::5",
      "2001:db8::10-2001:db8::20",
    ]);
  });
});
