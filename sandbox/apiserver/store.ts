/**
 * The object store: every write's semantics (optimistic concurrency, status subresource, finalizers and deletion
 * timestamps, namespaces, allocation) and the global, monotonically increasing resourceVersion.
 *
 * All operations are synchronous, so each is atomic and watchers see commits in order. Methods return objects
 * shared with the store (the HTTP layer serialises them, cached); never mutate them — in-process callers go
 * through in-process-store.ts, which copies. Reads (list, watch) live in store-reads.ts.
 */
import { type ChangeType, Collection, objectKey, type StoredEvent } from "./collection.ts";
import { toStorageForm, toViewForm } from "./events-view.ts";
import { invalidError } from "./field-errors.ts";
import { isObject, type Obj, str } from "./json.ts";
import { applyPatch, type PatchType } from "./patch/apply.ts";
import { RESOURCES, type ResourceDef, resolveResource } from "./resources.ts";
import { ServiceAllocator } from "./service-allocator.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  methodNotAllowed,
  notFound,
  staleConflict,
} from "./status-errors.ts";
import { formatTime } from "./times.ts";
import { WatchHub } from "./watch-hub.ts";
import { bumpGeneration, changed, prepareCreate, prepareUpdate, type WriteContext } from "./write-prep.ts";

export type { PatchType };
export type ResourceLike = { readonly group: string; readonly plural: string };

export interface WriteOptions {
  /** For namespaced resources; defaults to the body's namespace, then `default`. */
  readonly namespace?: string | undefined;
  readonly subresource?: "status" | undefined;
  /** Validate and answer, store nothing (`?dryRun=All`). */
  readonly dryRun?: boolean | undefined;
}

export interface DeleteOptions {
  readonly namespace?: string | undefined;
  /** Preconditions: 409 Conflict when the stored object's differ. */
  readonly uid?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly dryRun?: boolean | undefined;
}

export interface DeleteResult {
  /** The object as it now is (deletion pending on finalizers) or was (deleted). */
  readonly object: Obj;
  readonly deleted: boolean;
}

export interface StoreOptions {
  readonly now: () => number;
  /** Watch history kept per collection, in events; older versions answer 410. */
  readonly compactionWindow: number;
  readonly uid?: () => string;
  readonly suffix?: () => string;
}

const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const randomSuffix = (): string =>
  Array.from({ length: 5 }, () => SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)]).join("");

const PROTECTED_NAMESPACES = ["default", "kube-system", "kube-public"];
const INITIAL_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];
const NAMESPACES = resolveResource({ group: "", plural: "namespaces" });
const primaryDefs = new Map(RESOURCES.filter((d) => d.storage === d.id).map((d) => [d.storage, d]));

const finalizersOf = (obj: Obj): unknown[] =>
  Array.isArray(obj.metadata?.finalizers) ? (obj.metadata.finalizers as unknown[]) : [];

export class ObjectStore {
  readonly hub = new WatchHub();
  readonly #collections = new Map<string, Collection>();
  readonly #alloc = new ServiceAllocator();
  readonly #ctx: WriteContext;
  readonly #json = new WeakMap<Obj, string>();
  readonly #window: number;
  #rv = 0;
  /** The namespace being emptied: its objects' deletions must not finish it from under `delete`. */
  #emptying: string | undefined;

  constructor(opts: StoreOptions) {
    this.#window = opts.compactionWindow;
    this.#ctx = { now: opts.now, uid: opts.uid ?? (() => crypto.randomUUID()), suffix: opts.suffix ?? randomSuffix };
    for (const name of INITIAL_NAMESPACES) this.create(NAMESPACES, { metadata: { name } }, {});
  }

  get resourceVersion(): number {
    return this.#rv;
  }

  /** The JSON text of a stored (shared) object, computed once per object. */
  json(obj: Obj): string {
    let s = this.#json.get(obj);
    if (s === undefined) {
      s = JSON.stringify(obj);
      this.#json.set(obj, s);
    }
    return s;
  }

  collection(def: ResourceDef): Collection {
    let c = this.#collections.get(def.storage);
    if (!c) {
      c = new Collection(this.#window);
      this.#collections.set(def.storage, c);
    }
    return c;
  }

  /** Forgets all watch history: every version before now answers 410. */
  compact(): void {
    for (const c of this.#collections.values()) c.compactTo(this.#rv);
  }

  namespaceFor(def: ResourceDef, namespace: string | undefined, body?: Obj): string {
    return def.namespaced ? namespace || str(body?.metadata?.namespace) || "default" : "";
  }

  get(ref: ResourceLike, name: string, opts: { namespace?: string | undefined } = {}): Obj {
    const def = resolveResource(ref);
    return toViewForm(def, this.#stored(def, name, this.namespaceFor(def, opts.namespace)));
  }

  create(ref: ResourceLike, body: Obj, opts: WriteOptions): Obj {
    const def = this.#writable(ref);
    const ns = this.namespaceFor(def, opts.namespace, body);
    this.#requireNamespace(def, ns, str(body.metadata?.name) ?? "");
    const obj = toStorageForm(def, prepareCreate(def, body, ns, this.#ctx));
    const name = str(obj.metadata?.name) ?? "";
    const col = this.collection(def);
    if (col.items.has(objectKey(ns, name))) throw alreadyExists(def, name);
    if (opts.dryRun) return toViewForm(def, obj);
    this.#allocate(def, obj, undefined);
    return toViewForm(def, this.#commit(def, "ADDED", obj, undefined));
  }

  update(ref: ResourceLike, body: Obj, opts: WriteOptions): Obj {
    const def = this.#writable(ref);
    const ns = this.namespaceFor(def, opts.namespace, body);
    const name = str(body.metadata?.name) ?? "";
    if (!name) throw badRequest("name is required for an update");
    const bodyNs = str(body.metadata?.namespace);
    if (def.namespaced && bodyNs && bodyNs !== ns) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const stored = this.collection(def).items.get(objectKey(ns, name));
    if (!stored) {
      if (def.allowCreateOnUpdate && !opts.subresource) return this.create(def, body, opts);
      throw notFound(def, name);
    }
    const rv = str(body.metadata?.resourceVersion);
    if (rv && rv !== stored.metadata?.resourceVersion) throw staleConflict(def, name);
    return this.#update(def, stored, body, opts);
  }

  patch(ref: ResourceLike, name: string, type: PatchType, patch: unknown, opts: WriteOptions): Obj {
    const def = this.#writable(ref);
    const stored = this.#stored(def, name, this.namespaceFor(def, opts.namespace));
    const candidate = applyPatch(toViewForm(def, stored), def.kind, type, patch);
    const rv = str(candidate.metadata?.resourceVersion);
    if (rv && rv !== stored.metadata?.resourceVersion) throw staleConflict(def, name);
    return this.#update(def, stored, candidate, opts);
  }

  delete(ref: ResourceLike, name: string, opts: DeleteOptions): DeleteResult {
    const def = this.#writable(ref);
    const ns = this.namespaceFor(def, opts.namespace);
    const stored = this.#stored(def, name, ns);
    const meta = stored.metadata ?? {};
    if (opts.uid !== undefined && opts.uid !== meta.uid) {
      throw conflict(
        def,
        name,
        `Precondition failed: UID in precondition: ${opts.uid}, UID in object meta: ${String(meta.uid)}`,
      );
    }
    if (opts.resourceVersion !== undefined && opts.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${opts.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`,
      );
    }
    if (def.id === NAMESPACES.id && PROTECTED_NAMESPACES.includes(name)) {
      throw forbidden(def, name, "this namespace may not be deleted");
    }
    if (opts.dryRun) return { object: toViewForm(def, stored), deleted: finalizersOf(stored).length === 0 };
    const pending = finalizersOf(stored).length > 0 || def.id === NAMESPACES.id;
    if (!pending) return { object: toViewForm(def, this.#remove(def, stored)), deleted: true };
    let current = stored;
    if (!meta.deletionTimestamp) {
      const next: Obj = {
        ...stored,
        metadata: {
          ...meta,
          deletionTimestamp: formatTime(this.#ctx.now()),
          deletionGracePeriodSeconds: 0,
          ...(typeof meta.generation === "number" ? { generation: meta.generation + 1 } : {}),
        },
      };
      if (def.id === NAMESPACES.id)
        next.status = { ...(isObject(stored.status) ? stored.status : {}), phase: "Terminating" };
      current = this.#commit(def, "MODIFIED", next, stored);
    }
    if (def.id === NAMESPACES.id) {
      this.#emptyNamespace(name);
      const gone = this.#finishNamespace(name);
      if (gone) return { object: toViewForm(def, gone), deleted: true };
    }
    return { object: toViewForm(def, current), deleted: false };
  }

  #update(def: ResourceDef, stored: Obj, candidate: Obj, opts: WriteOptions): Obj {
    const old = toViewForm(def, stored);
    const next = toStorageForm(def, prepareUpdate(def, old, candidate, opts.subresource));
    if (!opts.dryRun) this.#allocate(def, next, stored);
    bumpGeneration(next, stored);
    if (!changed(stored, next)) return old;
    if (opts.dryRun) return toViewForm(def, next);
    if (stored.metadata?.deletionTimestamp && finalizersOf(next).length === 0) {
      if (def.id !== NAMESPACES.id) return toViewForm(def, this.#remove(def, next, stored));
      const committed = this.#commit(def, "MODIFIED", next, stored);
      return toViewForm(def, this.#finishNamespace(str(next.metadata?.name) ?? "") ?? committed);
    }
    const committed = this.#commit(def, "MODIFIED", next, stored);
    if (def.id === "core/services") this.#alloc.releaseDropped(stored, committed);
    return toViewForm(def, committed);
  }

  /** Deletes `obj` now (its last state `last`, e.g. with finalizers just removed); returns the final object. */
  #remove(def: ResourceDef, last: Obj, prev: Obj = last): Obj {
    const removed = this.#commit(def, "DELETED", last, prev);
    if (def.id === "core/services") this.#alloc.release(prev);
    const ns = str(last.metadata?.namespace);
    if (ns && ns !== this.#emptying) this.#finishNamespace(ns);
    return removed;
  }

  /** Deletes (or marks for deletion) everything in a terminating namespace. */
  #emptyNamespace(ns: string): void {
    this.#emptying = ns;
    try {
      this.#deleteAllIn(ns);
    } finally {
      this.#emptying = undefined;
    }
  }

  #deleteAllIn(ns: string): void {
    for (const [storage, col] of this.#collections) {
      const def = primaryDefs.get(storage);
      if (!def?.namespaced || !col.hasNamespace(ns)) continue;
      for (const key of [...col.keysFrom(col.sortedKeys(), ns, undefined)]) {
        const obj = col.items.get(key);
        if (obj) this.delete(def, str(obj.metadata?.name) ?? "", { namespace: ns });
      }
    }
  }

  /** Removes a terminating namespace once nothing lives in it and it has no finalizers; returns its last state. */
  #finishNamespace(ns: string): Obj | undefined {
    const col = this.collection(NAMESPACES);
    const nsObj = col.items.get(ns);
    if (!nsObj?.metadata?.deletionTimestamp || finalizersOf(nsObj).length > 0) return undefined;
    for (const [storage, c] of this.#collections) {
      if (primaryDefs.get(storage)?.namespaced && c.hasNamespace(ns)) return undefined;
    }
    // The namespace controller's `kubernetes` finalizer is satisfied: the namespace is empty.
    return this.#commit(
      NAMESPACES,
      "DELETED",
      { ...nsObj, spec: { ...(isObject(nsObj.spec) ? nsObj.spec : {}), finalizers: [] } },
      nsObj,
    );
  }

  #allocate(def: ResourceDef, obj: Obj, old: Obj | undefined): void {
    if (def.id !== "core/services") return;
    const errs = this.#alloc.assign(obj, old);
    if (errs.length) throw invalidError(def.group, def.kind, str(obj.metadata?.name) ?? "", errs);
  }

  /** Stamps the next resourceVersion on `obj` (owned or shallow-copied here), stores and publishes it. */
  #commit(def: ResourceDef, type: ChangeType, obj: Obj, prev: Obj | undefined): Obj {
    const rv = ++this.#rv;
    const stamped: Obj = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    const key = objectKey(str(stamped.metadata?.namespace) ?? "", str(stamped.metadata?.name) ?? "");
    const ev: StoredEvent = { type, rv, key, obj: stamped, prev };
    const primary = primaryDefs.get(def.storage) ?? def;
    this.collection(primary).record(ev);
    this.hub.publish(primary.storage, ev);
    return stamped;
  }

  #stored(def: ResourceDef, name: string, ns: string): Obj {
    const obj = this.collection(def).items.get(objectKey(ns, name));
    if (!obj) throw notFound(def, name);
    return obj;
  }

  #writable(ref: ResourceLike): ResourceDef {
    const def = resolveResource(ref);
    if (def.review) throw methodNotAllowed();
    return def;
  }

  #requireNamespace(def: ResourceDef, ns: string, name: string): void {
    if (!def.namespaced) return;
    const nsObj = this.collection(NAMESPACES).items.get(ns);
    if (!nsObj) throw notFound(NAMESPACES, ns);
    if (nsObj.metadata?.deletionTimestamp) {
      throw forbidden(def, name, `unable to create new content in namespace ${ns} because it is being terminated`);
    }
  }
}
