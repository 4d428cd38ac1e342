import { describe, expect, test } from "bun:test";
import { ServiceCache } from "./cache.ts";
import { node } from "./test-fixtures.ts";

describe("ServiceCache.exclusive", () => {
  test("runs calls for the same key one after another, in arrival order", async () => {
    const cache = new ServiceCache();
    const log: string[] = [];
    let releaseFirst = () => {};
    const first = cache.exclusive("ns/a", async () => {
      log.push("first start");
      await new Promise<void>((r) => {
        releaseFirst = r;
      });
      log.push("first end");
    });
    const second = cache.exclusive("ns/a", async () => {
      log.push("second");
    });
    await Bun.sleep(0);
    expect(log).toEqual(["first start"]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(log).toEqual(["first start", "first end", "second"]);
  });

  test("lets different keys run at once", async () => {
    const cache = new ServiceCache();
    let releaseA = () => {};
    const a = cache.exclusive("ns/a", () => new Promise<void>((r) => (releaseA = r)));
    let ranB = false;
    await cache.exclusive("ns/b", async () => {
      ranB = true;
    });
    expect(ranB).toBe(true);
    releaseA();
    await a;
  });

  test("releases the key when the holder throws", async () => {
    const cache = new ServiceCache();
    await expect(cache.exclusive("ns/a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await cache.exclusive("ns/a", async () => "next")).toBe("next");
  });
});

describe("ServiceCache.lastSyncedNodes", () => {
  test("keeps one array for Services synced with the same nodes, and apart ones for other sets", () => {
    const cache = new ServiceCache();
    const [n1, n2] = [node("n1"), node("n2")];
    cache.setLastSyncedNodes("ns/a", [n1, n2]);
    cache.setLastSyncedNodes("ns/b", [n1, n2]);
    expect(cache.lastSyncedNodes("ns/b")).toBe(cache.lastSyncedNodes("ns/a"));
    cache.setLastSyncedNodes("ns/c", [n1]);
    expect(cache.lastSyncedNodes("ns/c")).toEqual([n1]);
    expect(cache.lastSyncedNodes("ns/a")).toEqual([n1, n2]);
    const updated = node("n2");
    cache.setLastSyncedNodes("ns/d", [n1, updated]);
    expect(cache.lastSyncedNodes("ns/d")[1]).toBe(updated);
  });
});
