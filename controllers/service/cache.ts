/**
 * What the service controller remembers between syncs: the last Service state each key was synced with (needed
 * to delete a load balancer when a Service vanishes without our finalizer) and the node set each load balancer
 * was last given. Shared by the service workers and the node worker of one controller; never a module singleton.
 */
import type { Node, Service } from "../../kube/objects.ts";

export class ServiceCache {
  readonly #services = new Map<string, Service>();
  readonly #lastSyncedNodes = new Map<string, readonly Node[]>();
  #shared: readonly Node[] = [];
  readonly #locks = new Map<string, Promise<void>>();

  /**
   * Runs `fn` while no other `exclusive` call for the same key runs: a Service's own sync and a node-triggered
   * host update never overlap, so an update cannot reach the cloud while that load balancer is still being made.
   */
  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(key) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = before.then(() => mine);
    this.#locks.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }

  get(key: string): Service | undefined {
    return this.#services.get(key);
  }

  set(key: string, svc: Service): void {
    this.#services.set(key, svc);
  }

  /** Forgets the key, its last synced nodes included (upstream keeps those forever; nothing reads them after). */
  delete(key: string): void {
    this.#services.delete(key);
    this.#lastSyncedNodes.delete(key);
  }

  has(key: string): boolean {
    return this.#services.has(key);
  }

  /** Every cached Service, for a node sync. */
  services(): Service[] {
    return [...this.#services.values()];
  }

  lastSyncedNodes(key: string): readonly Node[] {
    return this.#lastSyncedNodes.get(key) ?? [];
  }

  /**
   * Load balancers almost always share one node set, so equal sets (the same cached Node objects in the same order)
   * are stored as one array: a copy per Service held Services × Nodes references, about 80 MB at 2000 × 5000.
   */
  setLastSyncedNodes(key: string, nodes: readonly Node[]): void {
    if (!sameNodes(nodes, this.#shared)) this.#shared = nodes;
    this.#lastSyncedNodes.set(key, this.#shared);
  }

  get size(): number {
    return this.#services.size;
  }
}

const sameNodes = (a: readonly Node[], b: readonly Node[]): boolean =>
  a.length === b.length && a.every((node, i) => node === b[i]);
