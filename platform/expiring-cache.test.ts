import { describe, expect, test } from "bun:test";
import { ExpiringCache } from "./expiring-cache.ts";

const setup = (max = 3) => {
  let t = 0;
  const cache = new ExpiringCache<string>(max, () => t);
  return {
    cache,
    advance: (ms: number) => {
      t += ms;
    },
    keys: () => ["a", "b", "c", "d"].filter((k) => cache.get(k)),
  };
};

describe("ExpiringCache", () => {
  test("answers until the TTL passes, then forgets", () => {
    const { cache, advance } = setup();
    cache.set("a", "A", 10);
    advance(9);
    expect(cache.get("a")).toEqual({ value: "A" });
    advance(1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test("keeps no entry for a TTL of 0", () => {
    const { cache } = setup();
    cache.set("a", "A", 0);
    expect(cache.size).toBe(0);
  });

  test("never holds more than its bound: the least recently used goes first", () => {
    const { cache, keys } = setup(3);
    cache.set("a", "A", 100);
    cache.set("b", "B", 100);
    cache.set("c", "C", 100);
    cache.get("a");
    cache.set("d", "D", 100);
    expect(cache.size).toBe(3);
    expect(keys()).toEqual(["a", "c", "d"]);
  });

  test("drops the expired entries it meets while making room", () => {
    const { cache, advance, keys } = setup(3);
    cache.set("a", "A", 100);
    cache.set("b", "B", 5);
    cache.set("c", "C", 100);
    advance(10);
    cache.set("d", "D", 100);
    expect(keys()).toEqual(["c", "d"]);
  });

  test("stays at its bound under a flood of distinct keys", () => {
    const { cache } = setup(100);
    for (let i = 0; i < 10_000; i++) cache.set(`random-${i}`, "x", 10_000);
    expect(cache.size).toBe(100);
  });
});
