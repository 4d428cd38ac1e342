import { describe, expect, test } from "bun:test";
import type { KubeObject } from "./objects.ts";
import { ObjectStore, objectKey, splitKey } from "./store.ts";

const obj = (name: string, rv: string, namespace?: string, zone?: string): KubeObject => ({
  metadata: { name, resourceVersion: rv, ...(namespace && { namespace }), ...(zone && { labels: { zone } }) },
});

describe("keys", () => {
  test.each([
    [obj("n1", "1"), "n1"],
    [obj("web", "1", "default"), "default/web"],
  ])("%o has key %s, which splits back", (o, key) => {
    expect(objectKey(o)).toBe(key);
    expect(splitKey(key)).toEqual({ namespace: o.metadata?.namespace, name: o.metadata?.name ?? "" });
  });
});

describe("replace", () => {
  test("reports deletes, then adds and updates in list order, and nothing for an unchanged version", () => {
    const s = new ObjectStore<KubeObject>();
    s.replace([obj("a", "1"), obj("b", "1"), obj("c", "1")]);
    const deltas = s.replace([obj("d", "5"), obj("b", "1"), obj("c", "4")]);
    expect(deltas.map((d) => `${d.type} ${d.type === "delete" ? d.old.metadata?.name : d.obj.metadata?.name}`)).toEqual(
      ["delete a", "add d", "update c"],
    );
    expect(s.keys().sort()).toEqual(["b", "c", "d"]);
  });
});

describe("indexes", () => {
  test("follow puts, removes and replaces, and index objects already stored", () => {
    const s = new ObjectStore<KubeObject>();
    s.put(obj("a", "1", undefined, "z1"));
    s.addIndexer("zone", (o) => (o.metadata?.labels?.zone ? [o.metadata.labels.zone] : []));
    expect(s.byIndex("zone", "z1").map(objectKey)).toEqual(["a"]);
    s.put(obj("a", "2", undefined, "z2"));
    s.put(obj("b", "1", undefined, "z2"));
    expect(s.byIndex("zone", "z1")).toEqual([]);
    expect(s.byIndex("zone", "z2").map(objectKey).sort()).toEqual(["a", "b"]);
    s.remove("a");
    s.replace([obj("b", "1", undefined, "z2"), obj("c", "1", undefined, "z3")]);
    expect(s.byIndex("zone", "z2").map(objectKey)).toEqual(["b"]);
    expect(s.byIndex("zone", "z3").map(objectKey)).toEqual(["c"]);
  });

  test("refuse a duplicate name and an unknown index", () => {
    const s = new ObjectStore<KubeObject>();
    s.addIndexer("x", () => []);
    expect(() => s.addIndexer("x", () => [])).toThrow("already exists");
    expect(() => s.byIndex("y", "v")).toThrow("does not exist");
  });
});
