/**
 * One storage collection: the current objects by key, their key order, and the bounded history of changes that
 * watches replay and consistent list pages roll back through.
 *
 * Keys are `namespace/name` (or `name`), ordered like etcd keys, so a namespace is a contiguous range. The sorted
 * key array is rebuilt only when the key set changes (create/delete), never on update. History keeps at least
 * `window` events; older ones are compacted in amortised O(1), raising `compactedRv`.
 */
import type { Obj } from "./json.ts";

export type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoredEvent {
  readonly type: ChangeType;
  readonly rv: number;
  readonly key: string;
  /** The object after the change (for DELETED: its last state, carrying the deletion's resourceVersion). */
  readonly obj: Obj;
  /** The object before the change (undefined for ADDED). */
  readonly prev: Obj | undefined;
}

export const objectKey = (namespace: string, name: string): string => (namespace ? `${namespace}/${name}` : name);

/** Names cannot contain `/`, so the namespace is whatever precedes one. */
const namespaceOfKey = (key: string): string => {
  const i = key.indexOf("/");
  return i < 0 ? "" : key.slice(0, i);
};

/** First index in `sorted` whose value is >= `key` (or > with `after`). */
const lowerBound = (sorted: readonly string[], key: string, after: boolean): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v < key || (after && v === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

export class Collection {
  readonly items = new Map<string, Obj>();
  /** Events with rv <= compactedRv may be gone: a watch or page starting before it gets 410. */
  compactedRv = 0;
  #sorted: string[] | undefined;
  #history: StoredEvent[] = [];
  readonly #perNamespace = new Map<string, number>();
  readonly #window: number;

  constructor(window: number) {
    this.#window = Math.max(1, window);
  }

  record(ev: StoredEvent): void {
    if (ev.type === "DELETED") this.items.delete(ev.key);
    else this.items.set(ev.key, ev.obj);
    if (ev.type !== "MODIFIED") {
      this.#sorted = undefined;
      const ns = namespaceOfKey(ev.key);
      this.#perNamespace.set(ns, (this.#perNamespace.get(ns) ?? 0) + (ev.type === "ADDED" ? 1 : -1));
    }
    this.#history.push(ev);
    if (this.#history.length >= 2 * this.#window) {
      const drop = this.#history.length - this.#window;
      this.compactedRv = this.#history[drop - 1]!.rv;
      this.#history = this.#history.slice(drop);
    }
  }

  /** Forgets all history up to `rv` (fault injection and tests). */
  compactTo(rv: number): void {
    this.#history = this.#history.filter((e) => e.rv > rv);
    this.compactedRv = Math.max(this.compactedRv, rv);
  }

  /** The events after `rv`, oldest first; undefined when some of them were compacted away. */
  eventsAfter(rv: number): readonly StoredEvent[] | undefined {
    if (rv < this.compactedRv) return undefined;
    const h = this.#history;
    let lo = 0;
    let hi = h.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return h.slice(lo);
  }

  sortedKeys(): readonly string[] {
    this.#sorted ??= [...this.items.keys()].sort();
    return this.#sorted;
  }

  /**
   * The keys (sorted) and objects as they were at `rv`, rolled back through history; undefined when history no
   * longer reaches back that far. Costs O(n) only when something changed after `rv`.
   */
  snapshotAt(rv: number): { keys: readonly string[]; items: ReadonlyMap<string, Obj> } | undefined {
    const later = this.eventsAfter(rv);
    if (!later) return undefined;
    if (later.length === 0) return { keys: this.sortedKeys(), items: this.items };
    const items = new Map(this.items);
    for (let i = later.length - 1; i >= 0; i--) {
      const ev = later[i]!;
      if (ev.prev) items.set(ev.key, ev.prev);
      else items.delete(ev.key);
    }
    return { keys: [...items.keys()].sort(), items };
  }

  /** Keys in `namespace` (all keys for ""), from just after `afterKey` when given. */
  *keysFrom(keys: readonly string[], namespace: string, afterKey: string | undefined): Generator<string> {
    const prefix = namespace ? `${namespace}/` : "";
    let i = lowerBound(keys, afterKey !== undefined && afterKey >= prefix ? afterKey : prefix, afterKey !== undefined);
    for (; i < keys.length; i++) {
      const k = keys[i]!;
      if (!k.startsWith(prefix)) return;
      yield k;
    }
  }

  /** Whether any object lives in `namespace`. */
  hasNamespace(namespace: string): boolean {
    return (this.#perNamespace.get(namespace) ?? 0) > 0;
  }
}
