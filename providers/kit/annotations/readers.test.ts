import { describe, expect, test } from "bun:test";
import type { Service } from "../../../kube/objects.ts";
import { formatCIDR } from "../../../net/cidr.ts";
import { formatIP } from "../../../net/ip.ts";
import { bool, cidr, duration, int, ip, list, oneOf, type Parsed, type Reader, text } from "./readers.ts";

const svc: Service = { metadata: { name: "web" }, spec: { ports: [{ port: 80 }] } };
const read = <T>(reader: Reader<T>, t: string): Parsed<T> => reader.parse(t, svc);
const value = <T>(parsed: Parsed<T>) => (parsed.ok ? parsed.value : "invalid");

describe("scalar readers", () => {
  test.each([
    ["true", true],
    ["True", true],
    ["1", true],
    ["t", true],
    ["false", false],
    ["FALSE", false],
    ["0", false],
    ["yes", "invalid"],
    ["", "invalid"],
    ["tRuE", "invalid"],
  ])("bool reads %p as Go's ParseBool does: %p", (t, want) => {
    expect(value(read(bool(), t))).toBe(want);
  });

  test.each([
    ["3", {}, 3],
    ["-3", {}, -3],
    ["+3", {}, 3],
    ["10", { min: 1, max: 10 }, 10],
    ["0", { min: 1, max: 10 }, "invalid"],
    ["11", { min: 1, max: 10 }, "invalid"],
    ["3.0", {}, "invalid"],
    ["1e3", {}, "invalid"],
    ["0x10", {}, "invalid"],
    ["99999999999999999999", {}, "invalid"],
    ["three", {}, "invalid"],
  ])("int reads %p within %p as %p", (t, bounds, want) => {
    expect(value(read(int(bounds), t))).toBe(want);
  });

  test.each([
    ["30s", {}, 30_000],
    ["1m30s", {}, 90_000],
    ["1.5h", {}, 5_400_000],
    ["500ms", { min: 1000 }, "invalid"],
    ["10m", { max: 300_000 }, "invalid"],
    ["0", {}, 0],
    ["30", {}, "invalid"],
    ["thirty seconds", {}, "invalid"],
  ])("duration reads %p within %p as %p milliseconds", (t, bounds, want) => {
    expect(value(read(duration(bounds), t))).toBe(want);
  });

  test.each([
    ["round-robin", "round-robin"],
    ["least-connections", "least-connections"],
    ["Round-Robin", "invalid"],
    ["", "invalid"],
  ])("oneOf reads %p exactly: %p", (t, want) => {
    expect(value(read(oneOf(["round-robin", "least-connections"]), t))).toBe(want);
  });

  test("text takes anything, empty included", () => {
    expect(value(read(text(), ""))).toBe("");
    expect(value(read(text(), "a b"))).toBe("a b");
  });

  test.each([
    ["192.0.2.1", "192.0.2.1"],
    ["2001:DB8::1", "2001:db8::1"],
    ["192.0.2.01", "invalid"],
    ["fe80::1%eth0", "invalid"],
    ["banana", "invalid"],
  ])("ip reads %p strictly: %p", (t, want) => {
    const parsed = read(ip(), t);
    expect(parsed.ok ? formatIP(parsed.value) : "invalid").toBe(want);
  });

  test.each([
    ["10.0.0.0/8", "10.0.0.0/8"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["10.0.0.0/33", "invalid"],
    ["10.0.0.0", "invalid"],
  ])("cidr reads %p as %p", (t, want) => {
    const parsed = read(cidr(), t);
    expect(parsed.ok ? formatCIDR(parsed.value) : "invalid").toBe(want);
  });

  test("each reader states what it accepts, bounds included", () => {
    expect(int({ min: 1, max: 10 }).accepts).toBe("an integer from 1 to 10");
    expect(int({ min: 0 }).accepts).toBe("an integer of at least 0");
    expect(duration({ min: 1000, max: 300_000 }).accepts).toBe("a duration such as 30s or 1m30s from 1s to 5m0s");
    expect(oneOf(["a", "b"]).accepts).toBe("one of a, b");
  });
});

describe("lists", () => {
  test.each([
    ["10.0.0.0/8, 192.168.0.0/16", ["10.0.0.0/8", "192.168.0.0/16"]],
    ["10.0.0.0/8,", ["10.0.0.0/8"]],
    ["", []],
  ])("reads %p", (t, want) => {
    const parsed = read(list(cidr()), t);
    expect(parsed.ok && parsed.value.map(formatCIDR)).toEqual(want);
  });

  test("names every bad item", () => {
    expect(read(list(cidr()), "10.0.0.0/8,banana, 10.0.0.0/99")).toEqual({
      ok: false,
      reason: 'not a CIDR such as 10.0.0.0/8 or 2001:db8::/32: "banana", "10.0.0.0/99"',
    });
  });

  test("formats back to the annotation's spelling", () => {
    expect(list(int()).format([1, 2])).toBe("1,2");
    expect(list(int()).type).toBe("list of int");
  });
});
