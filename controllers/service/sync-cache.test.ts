import { describe, expect, test } from "bun:test";
import { ImplementedElsewhereError } from "../../providers/errors.ts";
import { classifySyncResult } from "./plan.ts";
import { syncService } from "./sync.ts";
import { cleanup, node, service, serviceUID, type } from "./test-fixtures.ts";
import { harnessFor, runSync } from "./test-harness.ts";

const KEY = "default/web";

describe("syncService: the cache path", () => {
  test("a Service gone without our finalizer has its cached load balancer deleted", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    await runSync(h, KEY);
    h.remove(KEY);
    h.reset();
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual(["delete"]);
    expect(h.reasons()).toEqual(["DeletingLoadBalancer", "DeletedLoadBalancer"]);
    expect(h.cache.has(KEY)).toBe(false);
  });

  test("there, ImplementedElsewhere is an ordinary failure and the cache entry stays", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    await runSync(h, KEY);
    h.remove(KEY);
    h.reset();
    const elsewhere = new ImplementedElsewhereError();
    cloud.override("ensureLoadBalancerDeleted", async () => {
      throw elsewhere;
    });
    expect(await runSync(h, KEY)).toEqual({ kind: "rateLimited", error: elsewhere });
    expect(h.state.events.map((e) => `${e.reason}: ${e.message}`)).toEqual([
      "DeletingLoadBalancer: Deleting load balancer",
      "DeleteLoadBalancerFailed: Error deleting load balancer: implemented by alternate to cloud provider",
    ]);
    expect(h.cache.has(KEY)).toBe(true);
  });

  test("an unknown key that is gone is nothing to do", async () => {
    const { cloud, h } = harnessFor([], []);
    expect(await runSync(h, "default/never")).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual([]);
  });

  test("a Service re-created under a new UID first loses the old load balancer", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    await runSync(h, KEY);
    h.put(service("web", serviceUID("uid-2")));
    h.reset();
    await runSync(h, KEY);
    expect(cloud.callNames()).toEqual(["delete", "create", "get-zone"]);
    expect(h.state.events.map((e) => `${e.uid} ${e.reason}`)).toEqual([
      "uid-web DeletingLoadBalancer",
      "uid-web DeletedLoadBalancer",
      "uid-2 EnsuringLoadBalancer",
      "uid-2 EnsuredLoadBalancer",
    ]);
    expect(h.cache.get(KEY)?.metadata?.uid).toBe("uid-2");
  });

  test("if deleting the old UID's load balancer fails, the new one is not ensured yet", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    await runSync(h, KEY);
    h.put(service("web", serviceUID("uid-2")));
    h.reset();
    cloud.override("ensureLoadBalancerDeleted", async () => {
      throw new Error("in use");
    });
    expect(await runSync(h, KEY)).toMatchObject({ kind: "rateLimited" });
    expect(cloud.callNames()).toEqual(["delete"]);
    expect(h.reasons()).toEqual(["DeletingLoadBalancer", "DeleteLoadBalancerFailed"]);
    expect(h.cache.get(KEY)?.metadata?.uid).toBe("uid-web");
  });

  test("an old UID that never wanted a load balancer needs no deletion", async () => {
    const { cloud, h } = harnessFor([service("web", type("ClusterIP"))], []);
    h.cache.set(KEY, service("web", type("ClusterIP")));
    h.put(service("web", serviceUID("uid-2")));
    await runSync(h, KEY);
    expect(cloud.callNames()).toEqual(["create", "get-zone"]);
  });

  test("a malformed key and a lister failure are returned", async () => {
    const { h } = harnessFor([], []);
    await expect(syncService(h.deps, "a/b/c")).rejects.toThrow('unexpected key format: "a/b/c"');
    const deps = {
      ...h.deps,
      getService: () => {
        throw new Error("lister broken");
      },
    };
    await expect(syncService(deps, KEY)).rejects.toThrow("lister broken");
  });

  test("the whole life of a Service: create, delete, gone", async () => {
    const { cloud, h } = harnessFor([service("web")], [node("a")]);
    cloud.externalIP = "5.6.7.8";
    await runSync(h, KEY);
    const live = h.live(KEY)!;
    expect(live.metadata?.finalizers).toEqual([cleanup]);
    h.put({ ...live, metadata: { ...live.metadata, deletionTimestamp: "2026-03-01T00:00:00Z" } });
    cloud.exists = true;
    await runSync(h, KEY);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([]);
    expect(h.live(KEY)?.status?.loadBalancer).toEqual({});
    h.remove(KEY);
    h.reset();
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual([]);
    expect(classifySyncResult(undefined)).toEqual({ kind: "success" });
  });
});
