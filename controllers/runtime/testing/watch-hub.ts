/**
 * Watch fan-out for the in-memory client: keeps a bounded history of events for replay from a resourceVersion and
 * streams live events to open watches.
 */
import type { WatchEvent, WatchEventType, WatchOptions } from "../../../kube/client-types.ts";
import type { KubeObject } from "../../../kube/objects.ts";

interface HistoryEntry {
  readonly rv: number;
  readonly key: string;
  readonly type: WatchEventType;
  readonly object: KubeObject;
}

interface Watcher {
  readonly key: string;
  readonly bookmarks: boolean;
  readonly selected: (obj: KubeObject) => boolean;
  push(event: WatchEvent<KubeObject>): void;
  close(): void;
}

export interface OpenHooks {
  /** Runs before anything is streamed (reactors); a throw fails the watch. */
  readonly before: () => Promise<unknown>;
  /** Current objects, for a watch without a resourceVersion (or "0"): sent as ADDED first. */
  readonly initial: () => KubeObject[];
  readonly selected: (obj: KubeObject) => boolean;
}

const expired = (requested: string, oldest: number) => ({
  apiVersion: "v1",
  kind: "Status",
  status: "Failure",
  message: `too old resource version: ${requested} (${oldest})`,
  reason: "Expired",
  code: 410,
});

export class WatchHub {
  readonly #limit: number;
  readonly #history: HistoryEntry[] = [];
  readonly #watchers = new Set<Watcher>();
  /** Watches from a resourceVersion below this are expired. */
  #oldest = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  emit(key: string, rv: number, type: WatchEventType, object: KubeObject): void {
    const entry = { rv, key, type, object: structuredClone(object) };
    this.#history.push(entry);
    while (this.#history.length > this.#limit) this.#oldest = this.#history.shift()?.rv ?? this.#oldest;
    for (const w of this.#watchers) {
      if (w.key === key && w.selected(object)) w.push({ type, object: structuredClone(object) });
    }
  }

  compact(rv: number): void {
    this.#history.length = 0;
    this.#oldest = rv;
  }

  closeAll(): void {
    for (const w of [...this.#watchers]) w.close();
  }

  bookmark(rv: string): void {
    for (const w of this.#watchers) {
      if (w.bookmarks) w.push({ type: "BOOKMARK", object: { metadata: { resourceVersion: rv } } });
    }
  }

  count(key?: string): number {
    return [...this.#watchers].filter((w) => key === undefined || w.key === key).length;
  }

  open<T extends KubeObject>(key: string, opts: WatchOptions, hooks: OpenHooks): AsyncIterable<WatchEvent<T>> {
    const hub = this;
    return {
      async *[Symbol.asyncIterator]() {
        await hooks.before();
        const buffer: WatchEvent<KubeObject>[] = [];
        let closed = false;
        let wake: (() => void) | undefined;
        const watcher: Watcher = {
          key,
          bookmarks: opts.allowWatchBookmarks ?? false,
          selected: hooks.selected,
          push(event) {
            buffer.push(event);
            wake?.();
          },
          close() {
            closed = true;
            wake?.();
          },
        };
        const rv = opts.resourceVersion;
        if (!rv || rv === "0") {
          for (const object of hooks.initial()) buffer.push({ type: "ADDED", object });
        } else if (Number(rv) < hub.#oldest) {
          yield { type: "ERROR", object: expired(rv, hub.#oldest) } as unknown as WatchEvent<T>;
          return;
        } else {
          for (const e of hub.#history) {
            if (e.rv > Number(rv) && e.key === key && hooks.selected(e.object)) {
              buffer.push({ type: e.type, object: structuredClone(e.object) });
            }
          }
        }
        const onAbort = () => watcher.close();
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        hub.#watchers.add(watcher);
        try {
          for (;;) {
            const next = buffer.shift();
            if (next) {
              yield next as WatchEvent<T>;
              continue;
            }
            if (closed || opts.signal?.aborted) return;
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
          }
        } finally {
          hub.#watchers.delete(watcher);
          opts.signal?.removeEventListener("abort", onAbort);
        }
      },
    };
  }
}
