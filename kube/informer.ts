/**
 * A shared informer: one list-and-watch per resource (and selector), a cache with indexes, and event handlers.
 *
 * Handlers run synchronously, in the order the changes happened, after the cache was updated; they should only
 * enqueue keys. A handler that throws is logged and does not disturb the others. Cached objects are shared: never
 * mutate one. `onDelete` gets the object's final state (from the DELETED event, or the last cached state when a
 * re-list found it gone).
 *
 * What is cached is what the controllers read (kube/trim.ts): a cached object is never written back whole.
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef } from "./client-types.ts";
import { abortableSleep, type Sleep } from "./clock.ts";
import type { KubeObject } from "./objects.ts";
import { runReflector } from "./reflector.ts";
import { type Delta, type IndexFunc, ObjectStore, objectKey } from "./store.ts";
import { keepOnly, keptFields } from "./trim.ts";

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions<T extends KubeObject> {
  readonly client: KubeClient;
  readonly ref: ResourceRef;
  readonly logger: ConsolaInstance;
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Every `resyncMs`, `onUpdate(obj, obj)` for every cached object; 0 or absent disables. */
  readonly resyncMs?: number;
  /** List page size (default 500). */
  readonly pageSize?: number;
  /** Applied to every object before it is cached (default: `cacheTransform(ref)`). */
  readonly transform?: (obj: T) => T;
  readonly sleep?: Sleep;
  /** Reconnect back-off (default 200 ms doubling to 30 s). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** A watch silent this long is presumed dead (default 2 min; API servers send a bookmark about every minute). */
  readonly watchIdleTimeoutMs?: number;
  /** Server-side watch timeout per watch (default: random 300–600 s). */
  readonly watchTimeoutSeconds?: () => number;
}

export interface Informer<T extends KubeObject> {
  readonly ref: ResourceRef;
  /** Lists and watches until the signal aborts; resolves after that. Runs once per informer. */
  run(signal: AbortSignal): Promise<void>;
  /** The first complete list is in the cache. */
  hasSynced(): boolean;
  /** Resolves when `hasSynced()` becomes true. */
  whenSynced(): Promise<void>;
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  addIndexer(name: string, fn: IndexFunc<T>): void;
  byIndex(name: string, value: string): T[];
  /** Adds handlers; they get `onAdd` for every object already cached. Returns the removal function. */
  addEventHandler(handler: EventHandler<T>): () => void;
  /** Re-delivers every cached object as `onUpdate(obj, obj)` (the periodic resync does this). */
  resync(): void;
}

/**
 * The default transform: the kind's keep-list (kube/trim.ts) widened by `extra` paths, or, for a kind without
 * one, the whole object less `metadata.managedFields`.
 */
export function cacheTransform<T extends KubeObject>(
  ref: Pick<ResourceRef, "group" | "plural">,
  extra: readonly string[] = [],
): (obj: T) => T {
  const kept = keptFields(ref);
  return kept ? keepOnly<T>([...kept, ...extra]) : stripManagedFields;
}

/** `metadata.managedFields` is large and no controller here reads it. */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export function createInformer<T extends KubeObject>(opts: InformerOptions<T>): Informer<T> {
  const store = new ObjectStore<T>();
  const handlers = new Set<EventHandler<T>>();
  const transform = opts.transform ?? cacheTransform<T>(opts.ref);
  const sleep = opts.sleep ?? abortableSleep;
  const log = opts.logger;
  let synced = false;
  let started = false;
  let markSynced: () => void = () => {};
  const syncedPromise = new Promise<void>((resolve) => {
    markSynced = resolve;
  });

  const each = (fn: (h: EventHandler<T>) => void) => {
    for (const h of handlers) {
      try {
        fn(h);
      } catch (err) {
        log.error(`${opts.ref.plural}: event handler failed`, err);
      }
    }
  };
  const deliver = (d: Delta<T>) => {
    if (d.type === "add") each((h) => h.onAdd?.(d.obj));
    else if (d.type === "update") each((h) => h.onUpdate?.(d.old, d.obj));
    else each((h) => h.onDelete?.(d.old));
  };

  const sink = {
    /**
     * A listed object as the cache keeps it, page by page: the cached instance itself when its version did not
     * change, so a re-list holds only what changed twice, never a second copy of the world.
     */
    listed(raw: T): T {
      const cached = store.get(objectKey(raw));
      const rv = raw.metadata?.resourceVersion;
      if (cached && rv !== undefined && cached.metadata?.resourceVersion === rv) return cached;
      return transform(raw);
    },
    replace(items: T[]) {
      for (const d of store.replace(items)) deliver(d);
      if (!synced) {
        synced = true;
        markSynced();
      }
    },
    apply(type: "ADDED" | "MODIFIED" | "DELETED", raw: T) {
      const obj = transform(raw);
      const key = objectKey(obj);
      if (type === "DELETED") {
        if (store.remove(key)) each((h) => h.onDelete?.(obj));
        return;
      }
      const old = store.get(key);
      // The same version again (a replay) is no change: handlers must not see it twice.
      if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
      store.put(obj);
      deliver(old ? { type: "update", old, obj } : { type: "add", obj });
    },
  };

  const resync = () => {
    for (const obj of store.list()) each((h) => h.onUpdate?.(obj, obj));
  };

  const resyncLoop = async (every: number, signal: AbortSignal) => {
    while (!signal.aborted) {
      await sleep(every, signal).catch(() => {});
      if (synced && !signal.aborted) resync();
    }
  };

  return {
    ref: opts.ref,
    async run(signal) {
      if (started) throw new Error(`informer for ${opts.ref.plural} is already running`);
      started = true;
      const reflector = runReflector<T>(
        {
          client: opts.client,
          ref: opts.ref,
          logger: log,
          sleep,
          namespace: opts.namespace,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          pageSize: opts.pageSize ?? 500,
          backoff: opts.backoff ?? { initialMs: 200, maxMs: 30_000 },
          watchIdleTimeoutMs: opts.watchIdleTimeoutMs ?? 120_000,
          watchTimeoutSeconds: opts.watchTimeoutSeconds ?? (() => 300 + Math.floor(Math.random() * 300)),
        },
        sink,
        signal,
      );
      const every = opts.resyncMs ?? 0;
      await Promise.all([reflector, every > 0 ? resyncLoop(every, signal) : undefined]);
    },
    hasSynced: () => synced,
    whenSynced: () => syncedPromise,
    get: (key) => store.get(key),
    list: () => store.list(),
    keys: () => store.keys(),
    addIndexer: (name, fn) => store.addIndexer(name, fn),
    byIndex: (name, value) => store.byIndex(name, value),
    addEventHandler(handler) {
      handlers.add(handler);
      for (const obj of store.list()) {
        try {
          handler.onAdd?.(obj);
        } catch (err) {
          log.error(`${opts.ref.plural}: event handler failed`, err);
        }
      }
      return () => {
        handlers.delete(handler);
      };
    },
    resync,
  };
}

/** Resolves true once every informer has synced, false if the signal aborts first. */
export function waitForCacheSync(
  informers: readonly Pick<Informer<KubeObject>, "hasSynced" | "whenSynced">[],
  signal: AbortSignal,
): Promise<boolean> {
  if (informers.every((i) => i.hasSynced())) return Promise.resolve(true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    void Promise.all(informers.map((i) => i.whenSynced())).then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    });
  });
}
