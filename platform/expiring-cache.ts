/**
 * A map whose entries expire and whose size is bounded: what the serving endpoints' token and access-review
 * caches need, since a client sending random tokens must not grow memory without end. Reads refresh recency;
 * when a write would exceed `maxEntries`, the least recently used go, and expired ones met on the way.
 */
import type { Now } from "../kube/clock.ts";

interface Entry<V> {
  readonly value: V;
  readonly expires: number;
}

export class ExpiringCache<V> {
  // A Map iterates in insertion order; re-inserting on use keeps the least recently used first.
  readonly #entries = new Map<string, Entry<V>>();
  constructor(
    private readonly maxEntries: number,
    private readonly now: Now,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value if present and not expired (`undefined` otherwise, and an expired entry is dropped). */
  get(key: string): { readonly value: V } | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    this.#entries.delete(key);
    if (hit.expires <= this.now()) return undefined;
    this.#entries.set(key, hit);
    return { value: hit.value };
  }

  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (ttlMs <= 0) return;
    if (this.#entries.size >= this.maxEntries) this.#evict();
    this.#entries.set(key, { value, expires: this.now() + ttlMs });
  }

  /** From the least recently used on: make room for one, and drop expired entries met on the way. */
  #evict(): void {
    const t = this.now();
    for (const [k, e] of this.#entries) {
      if (this.#entries.size < this.maxEntries && e.expires > t) break;
      this.#entries.delete(k);
    }
  }
}
