/** One operation at a time per key; operations on different keys run in parallel. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier `run` with the same key has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const mine = previous.then(fn);
    const tail = mine.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with an operation running or waiting. */
  get busy(): number {
    return this.#tails.size;
  }
}
