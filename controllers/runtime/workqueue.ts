/**
 * The controllers' work queue, with upstream's guarantees:
 *
 * - an item is queued at most once however often it is added (de-duplication);
 * - an item is never handed to two workers at once: re-added while being processed, it is queued again only when
 *   the worker calls `done`;
 * - delayed adds (`addAfter`, `addRateLimited`) keep only the earliest pending time per item;
 * - after `shutDown` adds are ignored, `get` still hands out what is queued and then resolves `undefined`.
 *
 * Metrics (`workqueue_*{name}`) are reported when the queue has a name and a registry.
 */
import type { Registry } from "prom-client";
import { type Clock, systemClock } from "../../kube/clock.ts";
import { type InProgressReporter, type WorkqueueMetrics, workqueueMetrics } from "./metrics.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiters.ts";

export interface WorkQueueOptions<T> {
  /** Metric label; upstream names: `Nodes`, `service`, `node`, `Routes`. */
  readonly name?: string;
  readonly clock?: Clock;
  /** Default: `defaultControllerRateLimiter`. */
  readonly rateLimiter?: RateLimiter<T>;
  readonly registry?: Registry;
}

export class WorkQueue<T = string> {
  readonly name: string;
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<T>;
  readonly #metrics: WorkqueueMetrics | undefined;
  readonly #reporter: InProgressReporter;
  readonly #queue: T[] = [];
  /** Items that need processing: queued, or re-added while being processed. */
  readonly #dirty = new Set<T>();
  /** Items handed out and not yet `done`, with the time they were handed out. */
  readonly #processing = new Map<T, number>();
  /** When each dirty item was first added (for `queue_duration_seconds`). */
  readonly #addedAt = new Map<T, number>();
  readonly #waiting = new Map<T, { at: number; cancel: () => void }>();
  readonly #getters: ((item: T | undefined) => void)[] = [];
  #drainers: (() => void)[] = [];
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<T> = {}) {
    this.name = options.name ?? "";
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.#clock.now);
    this.#metrics = options.registry && options.name ? workqueueMetrics(options.registry) : undefined;
    this.#reporter = { name: this.name, inProgress: () => this.#inProgress() };
    if (this.#metrics) {
      this.#metrics.depth.set({ name: this.name }, 0);
      this.#metrics.adds.inc({ name: this.name }, 0);
      this.#metrics.retries.inc({ name: this.name }, 0);
      this.#metrics.reporters.add(this.#reporter);
    }
  }

  /** Queues `item` unless it is already queued (or already pending behind its own processing). */
  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.#metrics?.adds.inc({ name: this.name });
    this.#metrics?.depth.inc({ name: this.name });
    if (!this.#addedAt.has(item)) this.#addedAt.set(item, this.#clock.now());
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#serveGetters();
  }

  /** Adds `item` after `ms` (at once when `ms` ≤ 0). A pending earlier time for the same item wins. */
  addAfter(item: T, ms: number): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc({ name: this.name });
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const at = this.#clock.now() + ms;
    const pending = this.#waiting.get(item);
    if (pending && pending.at <= at) return;
    pending?.cancel();
    const cancel = this.#clock.setTimer(() => {
      this.#waiting.delete(item);
      this.add(item);
    }, ms);
    this.#waiting.set(item, { at, cancel });
  }

  /** Adds `item` after the rate limiter's delay (one more failure of `item`). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.#limiter.when(item));
  }

  /** Forgets the failure history of `item`; call it after a successful sync. */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }

  /** The next item (the caller must call `done` with it), or `undefined` once shut down and empty. */
  get(): Promise<T | undefined> {
    const item = this.#take();
    if (item.found) return Promise.resolve(item.value);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `item` processed; if it was re-added meanwhile it is queued again now. */
  done(item: T): void {
    const started = this.#processing.get(item);
    if (started === undefined) return;
    this.#processing.delete(item);
    this.#metrics?.workDuration.observe({ name: this.name }, (this.#clock.now() - started) / 1000);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#serveGetters();
    }
    if (this.#processing.size === 0 && this.#drainers.length > 0) {
      for (const resolve of this.#drainers) resolve();
      this.#drainers = [];
    }
  }

  /** Items queued (not counting those being processed or waiting for their delay). */
  len(): number {
    return this.#queue.length;
  }

  /** Items waiting for a delayed add. */
  waitingCount(): number {
    return this.#waiting.size;
  }

  processingCount(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Stops accepting items and cancels delayed adds; idle `get`s resolve `undefined`. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const { cancel } of this.#waiting.values()) cancel();
    this.#waiting.clear();
    this.#serveGetters();
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
    if (this.#metrics) {
      this.#metrics.reporters.delete(this.#reporter);
      this.#metrics.depth.set({ name: this.name }, this.#queue.length);
    }
  }

  /** `shutDown`, then resolves once every item handed out has been marked `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  #take(): { found: true; value: T } | { found: false } {
    if (this.#queue.length === 0) return { found: false };
    const item = this.#queue.shift() as T;
    const now = this.#clock.now();
    if (this.#metrics) {
      this.#metrics.depth.dec({ name: this.name });
      const added = this.#addedAt.get(item);
      if (added !== undefined) this.#metrics.queueDuration.observe({ name: this.name }, (now - added) / 1000);
    }
    this.#addedAt.delete(item);
    this.#processing.set(item, now);
    this.#dirty.delete(item);
    return { found: true, value: item };
  }

  #serveGetters(): void {
    while (this.#getters.length > 0) {
      const item = this.#take();
      if (!item.found) return;
      this.#getters.shift()?.(item.value);
    }
  }

  #inProgress(): { unfinishedSeconds: number; longestSeconds: number } {
    const now = this.#clock.now();
    let unfinished = 0;
    let longest = 0;
    for (const started of this.#processing.values()) {
      const seconds = (now - started) / 1000;
      unfinished += seconds;
      longest = Math.max(longest, seconds);
    }
    return { unfinishedSeconds: unfinished, longestSeconds: longest };
  }
}
