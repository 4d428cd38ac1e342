/**
 * The informer's cache: objects by key (`namespace/name`, or `name` for cluster-scoped kinds) with secondary
 * indexes. Objects handed out are the cached instances: callers must not mutate them (copy first).
 */
import type { KubeObject } from "./objects.ts";

/** `namespace/name`, or `name` for cluster-scoped objects (the informer and work-queue key). */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? "";
  return ns ? `${ns}/${name}` : name;
}

/** Splits a key made by `objectKey`. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The values an object is found under in one index (e.g. its namespace, a label value, a spec field). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** One change the cache went through; `old` is set for updates and deletes. */
export type Delta<T> =
  | { readonly type: "add"; readonly obj: T }
  | { readonly type: "update"; readonly old: T; readonly obj: T }
  | { readonly type: "delete"; readonly old: T };

export class ObjectStore<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  /** Stores the object under its key; returns the one it replaced. */
  put(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    this.index(key, obj);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /**
   * Makes the content equal to `objs` and returns the differences: deletes first, then adds and updates in list
   * order. An object whose resourceVersion did not change is no difference.
   */
  replace(objs: readonly T[]): Delta<T>[] {
    const next = new Map<string, T>();
    for (const obj of objs) next.set(objectKey(obj), obj);
    const deltas: Delta<T>[] = [];
    for (const [key, old] of this.items) {
      if (!next.has(key)) {
        this.remove(key);
        deltas.push({ type: "delete", old });
      }
    }
    for (const obj of next.values()) {
      const prev = this.items.get(objectKey(obj));
      if (prev && prev.metadata?.resourceVersion === obj.metadata?.resourceVersion) continue;
      this.put(obj);
      deltas.push(prev ? { type: "update", old: prev, obj } : { type: "add", obj });
    }
    return deltas;
  }

  /** Adds an index and fills it from the current content. Names are unique. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`index ${name} already exists`);
    this.indexers.set(name, fn);
    this.indices.set(name, new Map());
    for (const [key, obj] of this.items) this.indexOne(name, fn, key, obj);
  }

  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`index ${name} does not exist`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) this.indexOne(name, fn, key, obj);
  }

  private indexOne(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    const index = this.indices.get(name)!;
    for (const value of fn(obj)) {
      const keys = index.get(value);
      if (keys) keys.add(key);
      else index.set(value, new Set([key]));
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}
