/**
 * The object store behind the test API server: one resourceVersion counter, objects per collection, a history of
 * changes for watches to replay, compaction (older versions answer 410), and the three patch formats.
 * Only what the kube/ tests need; the sandbox has the full emulator.
 */

export type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string; [k: string]: unknown };
  [k: string]: unknown;
};

export interface Change {
  readonly rv: number;
  readonly collection: string;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: Obj;
}

export class StoreError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const keyOf = (o: Obj) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

export class FakeStore {
  rv = 100;
  /** Watches from a version below this get 410. */
  compactedBelow = 0;
  readonly history: Change[] = [];
  private readonly collections = new Map<string, Map<string, Obj>>();
  private readonly listeners = new Set<(c: Change) => void>();

  onChange(fn: (c: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Forget the history: a watch from any version before the current one must re-list. */
  compact(): void {
    this.compactedBelow = this.rv;
    this.history.length = 0;
  }

  list(collection: string, namespace?: string): Obj[] {
    const all = [...(this.collections.get(collection)?.values() ?? [])];
    return all
      .filter((o) => !namespace || o.metadata.namespace === namespace)
      .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  }

  get(collection: string, namespace: string | undefined, name: string): Obj {
    const o = this.collections.get(collection)?.get(namespace ? `${namespace}/${name}` : name);
    if (!o) throw new StoreError(404, "NotFound", `${collection} "${name}" not found`);
    return o;
  }

  create(collection: string, obj: Obj): Obj {
    const map = this.collections.get(collection) ?? new Map<string, Obj>();
    this.collections.set(collection, map);
    if (map.has(keyOf(obj))) {
      throw new StoreError(409, "AlreadyExists", `${collection} "${obj.metadata.name}" already exists`);
    }
    const stored = structuredClone(obj);
    stored.metadata.uid ??= crypto.randomUUID();
    return this.commit(collection, "ADDED", stored);
  }

  /** PUT: optimistic concurrency on metadata.resourceVersion when the body carries one. */
  update(collection: string, obj: Obj, statusOnly = false): Obj {
    const cur = this.get(collection, obj.metadata.namespace, obj.metadata.name);
    const want = obj.metadata.resourceVersion;
    if (want && want !== cur.metadata.resourceVersion) {
      throw new StoreError(
        409,
        "Conflict",
        `the object has been modified; please apply your changes to the latest version`,
      );
    }
    const next = statusOnly ? { ...structuredClone(cur), status: obj.status } : structuredClone(obj);
    if (cur.metadata.uid) next.metadata.uid = cur.metadata.uid;
    return this.commit(collection, "MODIFIED", next);
  }

  patch(collection: string, namespace: string | undefined, name: string, contentType: string, body: unknown): Obj {
    const cur = this.get(collection, namespace, name);
    let next: Obj;
    if (contentType === "application/merge-patch+json" || contentType === "application/strategic-merge-patch+json") {
      next = mergePatch(structuredClone(cur), body) as Obj;
    } else if (contentType === "application/json-patch+json") {
      next = jsonPatch(structuredClone(cur), body);
    } else {
      throw new StoreError(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format: ${contentType}`,
      );
    }
    next.metadata.name = cur.metadata.name;
    if (cur.metadata.namespace) next.metadata.namespace = cur.metadata.namespace;
    return this.commit(collection, "MODIFIED", next);
  }

  delete(collection: string, namespace: string | undefined, name: string): Obj {
    const cur = this.get(collection, namespace, name);
    this.collections.get(collection)!.delete(keyOf(cur));
    return this.commit(collection, "DELETED", structuredClone(cur), true);
  }

  private commit(collection: string, type: Change["type"], obj: Obj, removed = false): Obj {
    this.rv += 1;
    obj.metadata.resourceVersion = String(this.rv);
    if (!removed) this.collections.get(collection)!.set(keyOf(obj), obj);
    const change: Change = { rv: this.rv, collection, type, object: structuredClone(obj) };
    this.history.push(change);
    for (const fn of this.listeners) fn(change);
    return obj;
  }
}

/** RFC 7386 JSON merge patch (strategic merge patches are applied the same way here). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** RFC 6902 JSON patch, the operations the tests use: add, replace, remove, test. */
export function jsonPatch(doc: Obj, ops: unknown): Obj {
  if (!Array.isArray(ops)) throw new StoreError(400, "BadRequest", "a JSON patch must be an array");
  for (const op of ops as { op: string; path: string; value?: unknown }[]) {
    const parts = op.path
      .split("/")
      .slice(1)
      .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = parts.pop() ?? "";
    let parent: Record<string, unknown> = doc;
    for (const p of parts) {
      const next = parent[p];
      if (typeof next !== "object" || next === null) throw new StoreError(422, "Invalid", `path ${op.path} missing`);
      parent = next as Record<string, unknown>;
    }
    if (op.op === "add" || op.op === "replace") parent[last] = op.value;
    else if (op.op === "remove") delete parent[last];
    else if (op.op === "test") {
      if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) {
        throw new StoreError(422, "Invalid", `test failed at ${op.path}`);
      }
    } else throw new StoreError(422, "Invalid", `unsupported op ${op.op}`);
  }
  return doc;
}
