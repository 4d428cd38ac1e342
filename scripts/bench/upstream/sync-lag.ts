/**
 * How far a Node's `Synced` event lags behind its initialisation, seen from
 * the outside, the same way for both managers: one watch on the Nodes notes when each first shows up without the
 * uninitialized taint, one watch on the core/v1 Events (`reason=Synced`, `involvedObject.kind=Node`) notes when its
 * event arrives; the lag is the difference, both times taken by this process's clock from the same API server.
 * Both watches start before the manager is spawned, from the version of a list taken then, so older events (of
 * earlier runs, with the same node names) do not count.
 */
import { type KubeClient, type ResourceRef, Resources } from "../../../kube/client-types.ts";
import type { Event, Node } from "../../../kube/objects.ts";
import { Taints } from "../../../kube/well-known.ts";

export interface SyncLag {
  /** Nodes seen initialised, and those of them whose `Synced` event was seen. */
  readonly initialised: number;
  readonly synced: number;
  /** Lags in seconds over the Nodes with both; NaN when none. */
  readonly medianS: number;
  readonly maxS: number;
}

export interface SyncLagWatch {
  /** Nodes seen without the uninitialized taint so far, and when the last of them was (this process's clock). */
  initialised(): { readonly count: number; readonly lastAt: number | undefined };
  /** Waits until every initialised Node's event was seen or `timeoutMs` passed, then stops watching. */
  finish(expected: number, timeoutMs: number): Promise<SyncLag>;
}

const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

export async function watchSyncLag(client: KubeClient): Promise<SyncLagWatch> {
  const stop = new AbortController();
  const initialisedAt = new Map<string, number>();
  const syncedAt = new Map<string, number>();
  const fieldSelector = "reason=Synced,involvedObject.kind=Node";
  const [nodes, events] = await Promise.all([
    client.list<Node>(Resources.nodes, { limit: 1 }),
    client.list<Event>(Resources.events, { fieldSelector, limit: 1 }),
  ]);
  const follow = async <T extends Node | Event>(
    ref: ResourceRef,
    resourceVersion: string,
    selector: string | undefined,
    seen: (object: T, at: number) => void,
  ) => {
    let rv = resourceVersion;
    while (!stop.signal.aborted) {
      try {
        for await (const e of client.watch<T>(ref, {
          resourceVersion: rv,
          ...(selector ? { fieldSelector: selector } : {}),
          allowWatchBookmarks: true,
          timeoutSeconds: 600,
          signal: stop.signal,
        })) {
          if (e.type === "ERROR") throw new Error(`watch ${ref.plural}: ${JSON.stringify(e.object)}`);
          rv = e.object.metadata?.resourceVersion ?? rv;
          if (e.type === "ADDED" || e.type === "MODIFIED") seen(e.object, performance.now());
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        throw err;
      }
    }
  };
  const watching = Promise.all([
    follow<Node>(Resources.nodes, nodes.resourceVersion, undefined, (n, at) => {
      const name = n.metadata?.name ?? "";
      if (!tainted(n) && !initialisedAt.has(name)) {
        initialisedAt.set(name, at);
        lastAt = at;
      }
    }),
    follow<Event>(Resources.events, events.resourceVersion, fieldSelector, (e, at) => {
      const name = e.involvedObject?.name ?? "";
      if (!syncedAt.has(name)) syncedAt.set(name, at);
    }),
  ]);
  watching.catch(() => {}); // surfaced by finish()

  let lastAt: number | undefined;
  return {
    initialised: () => ({ count: initialisedAt.size, lastAt }),
    async finish(expected, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      const complete = () => initialisedAt.size >= expected && [...initialisedAt.keys()].every((k) => syncedAt.has(k));
      while (!complete() && performance.now() < deadline) {
        const failed = await Promise.race([
          watching.then(
            () => false,
            () => true,
          ),
          Bun.sleep(100).then(() => false),
        ]);
        if (failed) break;
      }
      stop.abort();
      await watching.catch((err) => {
        throw new Error(`the Synced-lag watch failed: ${(err as Error).message}`);
      });
      const lags: number[] = [];
      for (const [name, at] of initialisedAt) {
        const synced = syncedAt.get(name);
        if (synced !== undefined) lags.push((synced - at) / 1000);
      }
      lags.sort((a, b) => a - b);
      return {
        initialised: initialisedAt.size,
        synced: lags.length,
        medianS: lags[Math.floor((lags.length - 1) / 2)] ?? Number.NaN,
        maxS: lags.at(-1) ?? Number.NaN,
      };
    },
  };
}
