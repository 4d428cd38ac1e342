/**
 * Direct, in-process access to the emulator's objects for tests and the sandbox command: the same semantics as
 * over HTTP (validation, conflicts, finalizers, watch events to HTTP watchers), without the HTTP. Inputs and
 * outputs are copied, so callers may mutate what they pass and what they get. Failures throw `ApiError`
 * (status-errors.ts) with the HTTP code and reason the server would answer.
 */
import type { KubeObject } from "../../kube/objects.ts";
import { clone, type Obj } from "./json.ts";
import type { DeleteOptions, ObjectStore, PatchType, ResourceLike, WriteOptions } from "./store.ts";
import { type ListOptions, listObjects } from "./store-reads.ts";

export interface ResourceStore {
  /** The current global resourceVersion. */
  readonly resourceVersion: string;
  create<T extends KubeObject>(ref: ResourceLike, obj: T, opts?: WriteOptions): T;
  get<T extends KubeObject>(ref: ResourceLike, name: string, opts?: { namespace?: string }): T;
  /** PUT semantics: a stale `metadata.resourceVersion` throws 409 Conflict; an empty one updates unconditionally. */
  update<T extends KubeObject>(ref: ResourceLike, obj: T, opts?: WriteOptions): T;
  patch<T extends KubeObject>(ref: ResourceLike, name: string, type: PatchType, patch: unknown, opts?: WriteOptions): T;
  /** `deleted: false` when finalizers hold the object back (it then carries a deletionTimestamp). */
  delete(ref: ResourceLike, name: string, opts?: DeleteOptions): { object: KubeObject; deleted: boolean };
  list<T extends KubeObject>(
    ref: ResourceLike,
    opts?: ListOptions,
  ): { items: T[]; resourceVersion: string; continue?: string };
}

const out = <T>(obj: Obj): T => clone(obj) as T;
const owned = (obj: unknown): Obj => clone(obj) as Obj;

export const inProcessStore = (store: ObjectStore): ResourceStore => ({
  get resourceVersion() {
    return String(store.resourceVersion);
  },
  create: (ref, obj, opts = {}) => out(store.create(ref, owned(obj), opts)),
  get: (ref, name, opts = {}) => out(store.get(ref, name, opts)),
  update: (ref, obj, opts = {}) => out(store.update(ref, owned(obj), opts)),
  patch: (ref, name, type, patch, opts = {}) => out(store.patch(ref, name, type, clone(patch), opts)),
  delete: (ref, name, opts = {}) => {
    const r = store.delete(ref, name, opts);
    return { object: out(r.object), deleted: r.deleted };
  },
  list: <T extends KubeObject>(ref: ResourceLike, opts?: ListOptions) => {
    const page = listObjects(store, ref, opts);
    return { ...page, items: page.items.map((o) => out<T>(o)) };
  },
});
