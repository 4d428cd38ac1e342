/**
 * The list-then-watch loop behind an informer. It never gives up until its signal aborts:
 * - list (paginated), hand the whole list to the sink, then watch from the list's resourceVersion with bookmarks;
 * - when a watch ends, watch again from the last resourceVersion seen (events and bookmarks both advance it);
 * - on 410 (an HTTP answer or an ERROR event) the version is gone: list again, and the sink diffs;
 * - on any other failure (transport, idle timeout, 5xx, 403…) back off, doubling from `initialMs` to `maxMs`,
 *   then watch again from the last version (a list only when none was ever obtained). A list or an event resets
 *   the back-off.
 */
import type { ConsolaInstance } from "consola";
import type { KubeClient, ResourceRef, WatchEventType } from "./client-types.ts";
import { isGone } from "./client-types.ts";
import type { Sleep } from "./clock.ts";
import { isWatchIdleTimeout } from "./http.ts";
import type { KubeObject } from "./objects.ts";

export interface ReflectorSink<T> {
  /** Applied to each listed item as its page arrives (ListOptions.transform); `replace` gets the results. */
  readonly listed?: (item: T) => T;
  /** A complete list: make the cache equal to it. */
  replace(items: T[], resourceVersion: string): void;
  /** One change from the watch. */
  apply(type: Exclude<WatchEventType, "BOOKMARK" | "ERROR">, obj: T): void;
}

export interface ReflectorOptions {
  readonly client: KubeClient;
  readonly ref: ResourceRef;
  readonly logger: ConsolaInstance;
  readonly sleep: Sleep;
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly pageSize: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly watchIdleTimeoutMs: number;
  /** Server-side watch timeout, drawn per watch so that many clients do not reconnect in step. */
  readonly watchTimeoutSeconds: () => number;
}

export async function runReflector<T extends KubeObject>(
  o: ReflectorOptions,
  sink: ReflectorSink<T>,
  signal: AbortSignal,
): Promise<void> {
  const selectors = {
    ...(o.namespace && { namespace: o.namespace }),
    ...(o.labelSelector && { labelSelector: o.labelSelector }),
    ...(o.fieldSelector && { fieldSelector: o.fieldSelector }),
  };
  const what = `${o.ref.plural}${o.ref.group ? `.${o.ref.group}` : ""}`;
  let delay = o.backoff.initialMs;
  const backOff = async () => {
    await o.sleep(delay, signal).catch(() => {}); // an abort ends the wait; the loop checks the signal
    delay = Math.min(delay * 2, o.backoff.maxMs);
  };
  /** undefined ⇒ the next round lists first. */
  let rv: string | undefined;
  /** Nothing arrived since the last list: a 410 now must not turn into a tight list loop. */
  let fresh = false;
  let goneDelay = o.backoff.initialMs;

  while (!signal.aborted) {
    try {
      if (rv === undefined) {
        const list = await o.client.list<T>(o.ref, {
          ...selectors,
          limit: o.pageSize,
          signal,
          ...(sink.listed && { transform: sink.listed as unknown as (item: KubeObject) => KubeObject }),
        });
        if (signal.aborted) return;
        sink.replace(list.items, list.resourceVersion);
        rv = list.resourceVersion;
        fresh = true;
        delay = o.backoff.initialMs;
        o.logger.debug(`${what}: listed ${list.items.length} at resourceVersion ${rv}`);
      }
      let events = 0;
      const stream = o.client.watch<T>(o.ref, {
        ...selectors,
        resourceVersion: rv,
        allowWatchBookmarks: true,
        timeoutSeconds: o.watchTimeoutSeconds(),
        idleTimeoutMs: o.watchIdleTimeoutMs,
        signal,
      });
      for await (const ev of stream) {
        if (ev.type !== "BOOKMARK" && ev.type !== "ERROR") sink.apply(ev.type, ev.object);
        rv = ev.object.metadata?.resourceVersion || rv;
        fresh = false;
        goneDelay = o.backoff.initialMs;
        events++;
        delay = o.backoff.initialMs;
      }
      // A watch that closes at once, again and again, must not spin.
      if (events === 0 && !signal.aborted) await backOff();
    } catch (err) {
      if (signal.aborted) return;
      if (isGone(err)) {
        o.logger.info(`${what}: resourceVersion ${rv} is too old; listing again`);
        if (fresh) {
          // A server that expires every version at once would otherwise be listed in a tight loop.
          await o.sleep(goneDelay, signal).catch(() => {});
          goneDelay = Math.min(goneDelay * 2, o.backoff.maxMs);
        }
        rv = undefined;
        continue;
      }
      const level = isWatchIdleTimeout(err) ? "info" : "warn";
      o.logger[level](
        `${what}: ${rv === undefined ? "list" : "watch"} failed, retrying in ${delay} ms: ${(err as Error).message}`,
      );
      await backOff();
    }
  }
}
