/**
 * Open watches and the delivery of changes to them, synchronously, in resourceVersion order, as each write
 * commits (so a watch never misses or reorders an event, and a bookmark's version covers all that came before).
 *
 * Selector semantics follow the real watch cache: a change that makes an object start matching arrives as
 * ADDED, one that makes it stop matching as DELETED (carrying the previous state at the new version).
 */
import type { StoredEvent } from "./collection.ts";
import { toViewForm } from "./events-view.ts";
import type { Obj } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import type { Predicate } from "./selectors.ts";
import type { StatusBody } from "./status-errors.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export type WatchEnd = { readonly reason: "dropped" } | { readonly reason: "expired"; readonly status: StatusBody };

export interface WatchListener {
  /** `object` is shared with the store and other watchers: read or serialise it, never mutate it. */
  onEvent(type: WatchEventType, object: Obj): void;
  /** The server ended the watch (fault injection, shutdown); not called after the watcher's own `stop()`. */
  onEnd(end: WatchEnd): void;
}

export interface Watcher {
  readonly def: ResourceDef;
  readonly namespace: string;
  readonly matches: Predicate | undefined;
  readonly bookmarks: boolean;
  readonly listener: WatchListener;
}

const withVersion = (obj: Obj, rv: number): Obj => ({
  ...obj,
  metadata: { ...obj.metadata, resourceVersion: String(rv) },
});

export class WatchHub {
  readonly #byStorage = new Map<string, Set<Watcher>>();

  get size(): number {
    let n = 0;
    for (const set of this.#byStorage.values()) n += set.size;
    return n;
  }

  /** Registers `w`; the returned function unregisters it. */
  add(w: Watcher): () => void {
    let set = this.#byStorage.get(w.def.storage);
    if (!set) {
      set = new Set();
      this.#byStorage.set(w.def.storage, set);
    }
    set.add(w);
    return () => set.delete(w);
  }

  /** Sends a committed change to every watcher of its storage. */
  publish(storage: string, ev: StoredEvent): void {
    const set = this.#byStorage.get(storage);
    if (set) for (const w of set) deliver(w, ev);
  }

  /** A BOOKMARK at `rv` to every watcher that asked for bookmarks. */
  bookmark(rv: number): void {
    for (const set of this.#byStorage.values()) {
      for (const w of set) if (w.bookmarks) w.listener.onEvent("BOOKMARK", bookmarkObject(w.def, rv));
    }
  }

  /** Ends every open watch; returns how many there were. */
  endAll(end: WatchEnd): number {
    const all = [...this.#byStorage.values()].flatMap((s) => [...s]);
    this.#byStorage.clear();
    for (const w of all) w.listener.onEnd(end);
    return all.length;
  }
}

export const bookmarkObject = (def: ResourceDef, rv: number, annotations?: Record<string, string>): Obj => ({
  kind: def.kind,
  apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
  metadata: annotations ? { resourceVersion: String(rv), annotations } : { resourceVersion: String(rv) },
});

const inScope = (w: Watcher, obj: Obj): boolean =>
  (!w.namespace || obj.metadata?.namespace === w.namespace) && (!w.matches || w.matches(obj));

/** Delivers one stored change to one watcher, translating it through the watcher's selectors and view. */
export const deliver = (w: Watcher, ev: StoredEvent): void => {
  const now = inScope(w, ev.obj);
  const before = ev.prev !== undefined && inScope(w, ev.prev);
  if (ev.type === "ADDED" || ev.type === "DELETED") {
    if (now) w.listener.onEvent(ev.type, toViewForm(w.def, ev.obj));
  } else if (now) {
    w.listener.onEvent(before ? "MODIFIED" : "ADDED", toViewForm(w.def, ev.obj));
  } else if (before && ev.prev) {
    w.listener.onEvent("DELETED", toViewForm(w.def, withVersion(ev.prev, ev.rv)));
  }
};
