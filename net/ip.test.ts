import { describe, expect, test } from "bun:test";
import { canonicalIP, formatIP, parseIP, parseIPStrict } from "./ip.ts";

describe("sloppy dialect (parseIP)", () => {
  test.each([
    ["10.0.0.1", "10.0.0.1", false],
    ["010.000.000.001", "10.0.0.1", false],
    ["0000255.0.0.0", "255.0.0.0", false],
    ["::ffff:10.0.0.1", "10.0.0.1", false],
    ["::", "::", true],
    ["::1", "::1", true],
    ["1::", "1::", true],
    ["fd00::1", "fd00::1", true],
    ["FD00:0:0:0:0:0:0:1", "fd00::1", true],
    ["fd00:0000:0000::00001", "fd00::1", true],
    ["0:0:0:0:0:0:0:0", "::", true],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8", true],
    ["1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8", true],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1", true],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1", true],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304", true],
    ["::1.2.3.4", "::102:304", true],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0", true],
  ])("accepts %p as %p (IPv6: %p)", (text, canonical, v6) => {
    const ip = parseIP(text);
    expect(ip).toBeDefined();
    expect(formatIP(ip!)).toBe(canonical);
    expect(ip!.family === 6).toBe(v6);
  });

  test.each([
    "",
    "abc",
    "1.2.3",
    "1.2.3.4.5",
    "256.0.0.1",
    "1.2.3.-1",
    " 1.2.3.4",
    "1.2.3.4 ",
    "1.2.3.4::",
    "1.2.3.4:5",
    "1::2::3",
    ":::1",
    ":1::2",
    "1::2:",
    "1:",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7:8::",
    "10000::",
    "::g",
    "fe80::1%eth0",
    "[::1]",
    "::1.2.3.4:5",
    "a:1.2.3.4::",
    "1:2:3:4:5:6:7:1.2.3.4",
    "::1.2.3",
  ])("rejects %p", (text) => {
    expect(parseIP(text)).toBeUndefined();
  });

  test("parses addresses and refuses non-addresses", () => {
    expect(parseIP("1.2.3.4")).toEqual({ family: 4, value: 0x01020304n });
    expect(parseIP("::1")).toEqual({ family: 6, value: 1n });
    expect(parseIP("1.2.3")).toBeUndefined();
    expect(parseIP("gg::1")).toBeUndefined();
  });
});

describe("strict dialect (parseIPStrict, canonicalIP)", () => {
  test.each([
    ["192.0.2.1", "192.0.2.1"],
    ["0.0.0.0", "0.0.0.0"],
    ["255.255.255.255", "255.255.255.255"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:db8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8:0::1", "2001:db8::1"],
    ["::", "::"],
    ["::1", "::1"],
    ["fe80::", "fe80::"],
    ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:1:1:1:1:1:1", "2001:db8:1:1:1:1:1:1"],
    ["2001:db8::1:0:0:1", "2001:db8::1:0:0:1"],
    ["::ffff:192.0.2.1", "::ffff:c000:201"],
  ])("%p is canonically %p", (text, canon) => {
    expect(canonicalIP(text)).toBe(canon);
  });

  test.each([
    "",
    "192.0.2",
    "192.0.2.256",
    "192.0.2.01",
    "192.0.2.1.5",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    "2001:db8::g",
    "fe80::1%eth0",
    "12345::",
    "::1.2.3",
    " 1.2.3.4",
  ])("%p is not an address", (text) => {
    expect(parseIPStrict(text)).toBeUndefined();
  });
});
