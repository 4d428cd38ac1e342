/**
 * The object store behind `MemoryKubeClient`: objects by resource, one cluster-wide resourceVersion counter, the
 * write rules of the API server (status subresource, immutable metadata, no-op writes, finalizers) and watch events.
 */
import { randomUUID } from "node:crypto";
import { KubeApiError, type ResourceRef } from "../../../kube/client-types.ts";
import type { KubeObject, ObjectMeta } from "../../../kube/objects.ts";
import type { Now } from "../clock.ts";
import { formatTime } from "../timestamps.ts";
import { matchesFieldSelector, matchesLabelSelector } from "./selectors.ts";
import { WatchHub } from "./watch-hub.ts";

/** Resources whose `status` is written only through the status subresource. */
const STATUS_SUBRESOURCE = new Set(["/nodes", "/services", "/namespaces"]);

export const storeKeyOf = (ref: ResourceRef): string => `${ref.group}/${ref.plural}`;
export const qualified = (ref: ResourceRef): string => (ref.group ? `${ref.plural}.${ref.group}` : ref.plural);
export const apiVersionOf = (ref: ResourceRef): string => (ref.group ? `${ref.group}/${ref.version}` : ref.version);
const objectKey = (namespace: string | undefined, name: string): string => `${namespace ?? ""}/${name}`;

export const apiError = (status: number, reason: string, message: string): KubeApiError =>
  new KubeApiError(message, { status, reason });

export const conflictError = (ref: ResourceRef, name: string): KubeApiError =>
  apiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(ref)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );

export interface Selection {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

type WithStatus = KubeObject & { status?: unknown };

const withoutVersion = (o: KubeObject) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });

export class MemoryStore {
  readonly hub: WatchHub;
  readonly #now: Now;
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  #rv = 0;

  constructor(now: Now, historyLimit: number) {
    this.#now = now;
    this.hub = new WatchHub(historyLimit);
  }

  get resourceVersion(): number {
    return this.#rv;
  }

  find(ref: ResourceRef, name: string, namespace: string | undefined): KubeObject | undefined {
    return this.#store(ref).get(objectKey(ref.namespaced ? (namespace ?? "default") : undefined, name));
  }

  /** The stored object (not a copy: callers must not mutate it) or a 404. */
  existing(ref: ResourceRef, name: string, namespace: string | undefined): KubeObject {
    const obj = this.find(ref, name, namespace);
    if (!obj) throw apiError(404, "NotFound", `${qualified(ref)} "${name}" not found`);
    return obj;
  }

  selected(ref: ResourceRef, obj: KubeObject, selection: Selection): boolean {
    if (ref.namespaced && selection.namespace && obj.metadata?.namespace !== selection.namespace) return false;
    return matchesLabelSelector(selection.labelSelector, obj) && matchesFieldSelector(selection.fieldSelector, obj);
  }

  /** Copies of the selected objects, ordered by namespace and name. */
  select(ref: ResourceRef, selection: Selection): KubeObject[] {
    const key = (o: KubeObject) => objectKey(o.metadata?.namespace, o.metadata?.name ?? "");
    return [...this.#store(ref).values()]
      .filter((o) => this.selected(ref, o, selection))
      .sort((a, b) => key(a).localeCompare(key(b)))
      .map((o) => structuredClone(o));
  }

  create<T extends KubeObject>(ref: ResourceRef, body: T, namespace: string | undefined): T {
    const obj = structuredClone(body) as KubeObject;
    const meta: ObjectMeta = { ...obj.metadata };
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
    if (!meta.name) {
      throw apiError(
        422,
        "Invalid",
        `${ref.kind} is invalid: metadata.name: Required value: name or generateName is required`,
      );
    }
    const key = objectKey(namespace, meta.name);
    if (this.#store(ref).has(key))
      throw apiError(409, "AlreadyExists", `${qualified(ref)} "${meta.name}" already exists`);
    if (namespace === undefined) delete meta.namespace;
    else meta.namespace = namespace;
    meta.uid ??= randomUUID();
    meta.creationTimestamp ??= formatTime(this.#now());
    meta.resourceVersion = String(++this.#rv);
    const stored: KubeObject = { ...obj, apiVersion: apiVersionOf(ref), kind: ref.kind, metadata: meta };
    this.#store(ref).set(key, stored);
    this.hub.emit(storeKeyOf(ref), this.#rv, "ADDED", stored);
    return structuredClone(stored) as T;
  }

  /**
   * Writes `proposed` over `existing` the way the API server does: the status subresource rule, immutable identity
   * metadata, removal once a deleting object has no finalizers left, and no new resourceVersion for a no-op.
   */
  commit(ref: ResourceRef, existing: KubeObject, proposed: KubeObject, subresource: string | undefined): KubeObject {
    const old = existing as WithStatus;
    const statusOnly = subresource === "status";
    // A status write keeps everything but status and metadata from the stored object: the status strategies of
    // nodes, services and namespaces reset only the spec, so metadata changes (finalizers, labels) go through —
    // the service controller adds and removes its finalizer that way.
    const next: WithStatus = statusOnly ? { ...old, status: (proposed as WithStatus).status } : { ...proposed };
    if (statusOnly && next.status === undefined) delete next.status;
    if (!statusOnly && STATUS_SUBRESOURCE.has(storeKeyOf(ref))) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    const oldMeta = old.metadata ?? {};
    const meta: ObjectMeta = { ...proposed.metadata };
    for (const key of ["name", "namespace", "uid", "creationTimestamp", "resourceVersion"] as const) {
      if (oldMeta[key] === undefined) delete meta[key];
      else meta[key] = oldMeta[key];
    }
    // Deletion marks are set only by a delete and survive every write.
    for (const key of ["deletionTimestamp", "deletionGracePeriodSeconds"] as const) {
      if (oldMeta[key] === undefined) delete meta[key];
      else Object.assign(meta, { [key]: oldMeta[key] });
    }
    Object.assign(next, { apiVersion: apiVersionOf(ref), kind: ref.kind, metadata: meta });
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0) return this.remove(ref, next);
    if (Bun.deepEquals(withoutVersion(existing), withoutVersion(next))) return structuredClone(existing);
    meta.resourceVersion = String(++this.#rv);
    this.#store(ref).set(objectKey(meta.namespace, meta.name ?? ""), next);
    this.hub.emit(storeKeyOf(ref), this.#rv, "MODIFIED", next);
    return structuredClone(next);
  }

  /** Marks a finalized object as deleting (no-op when already marked). */
  markDeleting(ref: ResourceRef, existing: KubeObject): void {
    if (existing.metadata?.deletionTimestamp) return;
    const deletionTimestamp = formatTime(this.#now());
    const meta = { ...existing.metadata, deletionTimestamp, deletionGracePeriodSeconds: 0 };
    meta.resourceVersion = String(++this.#rv);
    const marked = { ...existing, metadata: meta };
    this.#store(ref).set(objectKey(meta.namespace, meta.name ?? ""), marked);
    this.hub.emit(storeKeyOf(ref), this.#rv, "MODIFIED", marked);
  }

  remove(ref: ResourceRef, obj: KubeObject): KubeObject {
    const meta = obj.metadata ?? {};
    this.#store(ref).delete(objectKey(meta.namespace, meta.name ?? ""));
    const gone = { ...obj, metadata: { ...meta, resourceVersion: String(++this.#rv) } };
    this.hub.emit(storeKeyOf(ref), this.#rv, "DELETED", gone);
    return structuredClone(gone);
  }

  #store(ref: ResourceRef): Map<string, KubeObject> {
    const key = storeKeyOf(ref);
    const found = this.#objects.get(key);
    if (found) return found;
    const created = new Map<string, KubeObject>();
    this.#objects.set(key, created);
    return created;
  }
}
