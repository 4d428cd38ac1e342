/**
 * Bounded parallel writing with one writer per key: up to `maxInFlight` writes run at once, but two items with the
 * same key never do, and they start in the order they were offered. The event recorder writes through it: events
 * about different objects go out in parallel, while a repeat of an event waits for its predecessor's write, so it
 * can PATCH the event that write created.
 *
 * Items wait in a bounded queue (`maxQueued`, the writes in flight not counted); `offer` refuses an item when the
 * queue is full, and the caller decides what a refusal means (the recorder drops and counts it).
 */

export interface KeyedWritersOptions<T> {
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly keyOf: (item: T) => string;
  /** Writes one item; a rejection is ignored here (the writer reports its own failures). */
  readonly write: (item: T) => Promise<void>;
}

export interface KeyedWriters<T> {
  /** Queues `item`, or returns false (and queues nothing) when `maxQueued` items are already waiting. */
  offer(item: T): boolean;
  /** Resolves once nothing waits and nothing is in flight (at once when idle). */
  idle(): Promise<void>;
  /** Items waiting, not yet started. */
  readonly queued: number;
  readonly inFlight: number;
}

interface Entry<T> {
  readonly key: string;
  readonly item: T;
}

export function createKeyedWriters<T>(options: KeyedWritersOptions<T>): KeyedWriters<T> {
  const maxInFlight = Math.max(1, Math.floor(options.maxInFlight));
  /** Entries whose key has nothing in flight, oldest first: the next to start. */
  const ready: Entry<T>[] = [];
  /**
   * A key is here while one of its entries is ready or in flight; the value holds its later entries, in order, until
   * that one is written.
   */
  const busy = new Map<string, Entry<T>[]>();
  let queued = 0;
  let inFlight = 0;
  let waiters: Array<() => void> = [];

  const wakeIfIdle = () => {
    if (inFlight > 0 || queued > 0) return;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };

  const finished = (entry: Entry<T>) => {
    inFlight -= 1;
    const next = busy.get(entry.key)?.shift();
    if (next) ready.push(next);
    else busy.delete(entry.key);
    pump();
    wakeIfIdle();
  };

  const pump = () => {
    while (inFlight < maxInFlight && ready.length > 0) {
      const entry = ready.shift() as Entry<T>;
      queued -= 1;
      inFlight += 1;
      // A synchronous throw becomes a rejection; both are the writer's to report.
      Promise.resolve()
        .then(() => options.write(entry.item))
        .catch(() => {})
        .finally(() => finished(entry));
    }
  };

  return {
    offer(item) {
      if (queued >= options.maxQueued) return false;
      const entry = { key: options.keyOf(item), item };
      queued += 1;
      const later = busy.get(entry.key);
      if (later) later.push(entry);
      else {
        busy.set(entry.key, []);
        ready.push(entry);
      }
      pump();
      return true;
    },
    idle() {
      if (inFlight === 0 && queued === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    get queued() {
      return queued;
    },
    get inFlight() {
      return inFlight;
    },
  };
}
