import { describe, expect, test } from "bun:test";
import { AddressPool, isCIDR } from "./address-pool.ts";

describe("AddressPool", () => {
  test("hands out the lowest free address, skipping network and broadcast", () => {
    const pool = new AddressPool("203.0.113.0/30");
    expect([pool.allocate(), pool.allocate(), pool.allocate()]).toEqual(["203.0.113.1", "203.0.113.2", undefined]);
  });

  test("reuses a released address before higher ones", () => {
    const pool = new AddressPool("10.0.0.0/24");
    const [a, b, c] = [pool.allocate(), pool.allocate(), pool.allocate()];
    pool.release(b!);
    expect(pool.allocate()).toBe(b!);
    expect(pool.allocate()).toBe("10.0.0.4");
    expect([a, c]).toEqual(["10.0.0.1", "10.0.0.3"]);
  });

  test("never hands out a reserved address", () => {
    const pool = new AddressPool("10.0.0.0/29");
    expect(pool.reserve("10.0.0.1")).toBe(true);
    expect(pool.reserve("10.0.0.1")).toBe(false);
    expect(pool.reserve("192.168.0.1")).toBe(false);
    expect(pool.allocate()).toBe("10.0.0.2");
    expect(pool.free).toBe(4);
  });

  test("counts across octets in larger pools", () => {
    const pool = new AddressPool("10.0.0.0/16");
    for (let i = 0; i < 255; i++) pool.allocate();
    expect(pool.allocate()).toBe("10.0.1.0");
  });

  test.each(["203.0.113.0", "203.0.113.0/33", "fd00::/64", "nope/24", "1.2.3.4/8/1"])("rejects %p", (cidr) => {
    expect(() => new AddressPool(cidr)).toThrow(/not an IPv4 CIDR/);
  });
});

describe("isCIDR", () => {
  test.each([
    ["10.244.0.0/24", true],
    ["fd00:10:244::/64", true],
    ["0.0.0.0/0", true],
    ["10.244.0.0/33", false],
    ["fd00::/129", false],
    ["10.244.0.0", false],
    ["10.244.0/24", false],
    ["", false],
  ])("%p → %p", (value, ok) => {
    expect(isCIDR(value)).toBe(ok);
  });
});
