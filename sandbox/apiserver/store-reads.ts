/**
 * List and watch over the store.
 *
 * List pages are consistent: a continue token carries the first page's resourceVersion, and later pages read the
 * snapshot at that version (rolled back through history), or answer 410 Expired once history no longer reaches
 * it — as a real server does with etcd. `resourceVersionMatch=Exact` reads a snapshot the same way.
 *
 * Watch semantics: no resourceVersion or "0" starts with synthetic ADDED events for the current state; a version
 * replays every later change in order, then streams live; a compacted version throws 410 Expired.
 */

import { toViewForm } from "./events-view.ts";
import type { Obj } from "./json.ts";
import { resolveResource } from "./resources.ts";
import { combine, parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { ApiError, badRequest, expired, methodNotAllowed } from "./status-errors.ts";
import type { ObjectStore, ResourceLike } from "./store.ts";
import { bookmarkObject, deliver, type Watcher, type WatchListener } from "./watch-hub.ts";

export interface ListOptions {
  /** "" or absent: all namespaces. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly limit?: number | undefined;
  readonly continue?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
}

export interface ListPage {
  readonly items: Obj[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

export interface WatchOptions {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly resourceVersion?: string | undefined;
  readonly allowWatchBookmarks?: boolean | undefined;
  /** Watch-list: the current state as ADDED events, then a BOOKMARK marked `k8s.io/initial-events-end`. */
  readonly sendInitialEvents?: boolean | undefined;
}

const CONTINUE_TOO_OLD =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

const parseVersion = (v: string): number => {
  if (!/^\d+$/.test(v)) throw badRequest(`resourceVersion: Invalid value: "${v}": must be a non-negative integer`);
  return Number(v);
};

const tooLarge = (wanted: number, current: number): ApiError =>
  new ApiError(504, "Timeout", `Timeout: Too large resource version: ${wanted}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });

const encodeContinue = (rv: number, start: string): string =>
  Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");

const decodeContinue = (token: string): { rv: number; start: string } => {
  try {
    const t = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { rv?: unknown; start?: unknown };
    if (typeof t.rv === "number" && typeof t.start === "string") return { rv: t.rv, start: t.start };
  } catch {
    // falls through to the error below
  }
  throw badRequest("continue key is not valid: invalid continue token");
};

export const listObjects = (store: ObjectStore, ref: ResourceLike, opts: ListOptions = {}): ListPage => {
  const def = resolveResource(ref);
  if (def.review) throw methodNotAllowed();
  const ns = def.namespaced ? (opts.namespace ?? "") : "";
  const matches = combine(parseLabelSelector(opts.labelSelector), parseFieldSelector(def, opts.fieldSelector));
  const col = store.collection(def);
  const current = store.resourceVersion;
  let at: number | undefined;
  let after: string | undefined;
  if (opts.continue) {
    ({ rv: at, start: after } = decodeContinue(opts.continue));
  } else if (opts.resourceVersion && opts.resourceVersionMatch === "Exact") {
    at = parseVersion(opts.resourceVersion);
  } else if (opts.resourceVersion && opts.resourceVersion !== "0") {
    const wanted = parseVersion(opts.resourceVersion);
    if (wanted > current) throw tooLarge(wanted, current);
  }
  if (at !== undefined && at > current) throw tooLarge(at, current);
  const view = at === undefined ? { keys: col.sortedKeys(), items: col.items } : col.snapshotAt(at);
  if (!view) throw expired(opts.continue ? CONTINUE_TOO_OLD : `too old resource version: ${at} (${col.compactedRv})`);
  const listRv = at ?? current;
  const limit = opts.limit && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
  const items: Obj[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (const key of col.keysFrom(view.keys, ns, after)) {
    const obj = view.items.get(key)!;
    if (matches && !matches(obj)) continue;
    if (items.length >= limit) {
      more = true;
      break;
    }
    items.push(toViewForm(def, obj));
    lastKey = key;
  }
  const page: ListPage = { items, resourceVersion: String(listRv) };
  return more && lastKey !== undefined ? { ...page, continue: encodeContinue(listRv, lastKey) } : page;
};

/**
 * Starts a watch: replays or synthesises the initial events into `listener` (synchronously, before returning),
 * then registers it for live ones. Returns the function that stops it.
 */
export const watchObjects = (
  store: ObjectStore,
  ref: ResourceLike,
  opts: WatchOptions,
  listener: WatchListener,
): (() => void) => {
  const def = resolveResource(ref);
  if (def.review) throw methodNotAllowed();
  const watcher: Watcher = {
    def,
    namespace: def.namespaced ? (opts.namespace ?? "") : "",
    matches: combine(parseLabelSelector(opts.labelSelector), parseFieldSelector(def, opts.fieldSelector)),
    bookmarks: opts.allowWatchBookmarks === true,
    listener,
  };
  const col = store.collection(def);
  const rv = opts.resourceVersion;
  if (!rv || rv === "0" || opts.sendInitialEvents) {
    for (const key of col.keysFrom(col.sortedKeys(), watcher.namespace, undefined)) {
      const obj = col.items.get(key)!;
      if (!watcher.matches || watcher.matches(obj)) listener.onEvent("ADDED", toViewForm(def, obj));
    }
    if (opts.sendInitialEvents && watcher.bookmarks) {
      const end = bookmarkObject(def, store.resourceVersion, { "k8s.io/initial-events-end": "true" });
      listener.onEvent("BOOKMARK", end);
    }
  } else {
    const from = parseVersion(rv);
    const events = col.eventsAfter(from);
    if (!events) throw expired(`too old resource version: ${from} (${col.compactedRv})`);
    for (const ev of events) deliver(watcher, ev);
  }
  return store.hub.add(watcher);
};
