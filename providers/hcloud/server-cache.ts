/**
 * hccm's server cache (`HCLOUD_SERVER_CACHE_MODE`, `HCLOUD_SERVER_CACHE_MAX_AGE`) in front of the one-by-one
 * lookups, so a cluster's periodic per-Node checks cost a listing a max-age instead of a call each:
 *
 * - `all` (hccm's default): one listing of every server (⌈servers/50⌉ calls) is kept for the max age; a server by
 *   ID or by name is answered from it. Unlike hccm, a stale listing is read again for a lookup only when it fits
 *   in one page: in a larger project that one lookup would cost a call per 50 servers, so the server is asked for
 *   on its own and the listing waits for the next unfiltered one. A lookup never costs more than without a cache.
 * - `one`: each server asked for by ID is kept for the max age.
 * - `off`: every lookup asks the API.
 *
 * A server missing from what is kept is asked for on its own before it counts as gone, so a stale list never
 * deletes a Node. An unfiltered listing (the bulk lookup, routes) always asks, and in `all` refreshes what is kept.
 */
import type { CallContext } from "../cloud.ts";
import { PAGE_SIZE } from "./api/client.ts";
import type { CloudServer, HcloudServersApi, ServerFilter } from "./api/servers.ts";
import type { HcloudConfig } from "./config.ts";

type Kept<T> = { readonly at: number; readonly value: Promise<T> };

export function cachedServers(
  api: HcloudServersApi,
  cache: HcloudConfig["serverCache"],
  now: () => number,
): HcloudServersApi {
  if (cache.mode === "off" || cache.maxAgeMs === 0) return api;
  const fresh = (k: Kept<unknown> | undefined): k is Kept<never> => k !== undefined && now() - k.at < cache.maxAgeMs;

  /** Keeps `value` under `set`, unless it fails: the next caller asks again. */
  function keep<T>(value: Promise<T>, set: (k: Kept<T> | undefined) => void, current: () => Kept<T> | undefined) {
    const entry = { at: now(), value };
    set(entry);
    value.catch(() => {
      if (current() === entry) set(undefined);
    });
    return value;
  }

  if (cache.mode === "one") {
    const byId = new Map<number, Kept<CloudServer | undefined>>();
    return {
      listServers: (ctx, filter) => api.listServers(ctx, filter),
      async getServer(ctx, id) {
        const kept = byId.get(id);
        if (fresh(kept)) {
          const server = await kept.value;
          if (server) return server;
        }
        const server = await keep(
          api.getServer(ctx, id),
          (k) => (k ? byId.set(id, k) : byId.delete(id)),
          () => byId.get(id),
        );
        // Only servers that exist are kept: a gone one is asked again next time.
        if (!server) byId.delete(id);
        return server;
      },
    };
  }

  let all: Kept<CloudServer[]> | undefined;
  /** Servers in the last listing that succeeded. */
  let lastSize = 0;
  const listEvery = (ctx: CallContext) => {
    const listing = keep(
      api.listServers(ctx),
      (k) => {
        all = k;
      },
      () => all,
    );
    void listing.then(
      (servers) => {
        lastSize = servers.length;
      },
      () => {},
    );
    return listing;
  };
  /**
   * The kept listing, read again when stale only if that costs one call (one page): a project of more servers
   * would pay ⌈servers/50⌉ calls for one lookup, so the one server is asked for instead (`undefined`), and the
   * listing is refreshed by the next unfiltered one (the bulk refresh, routes).
   */
  const kept = async (ctx: CallContext): Promise<CloudServer[] | undefined> => {
    if (fresh(all)) return await all.value;
    if (all !== undefined && lastSize > PAGE_SIZE) return undefined;
    return await listEvery(ctx);
  };
  return {
    async listServers(ctx, filter: ServerFilter = {}) {
      if (filter.labelSelector !== undefined) return api.listServers(ctx, filter);
      if (filter.name === undefined) return listEvery(ctx);
      const found = ((await kept(ctx)) ?? []).filter((s) => s.name === filter.name);
      return found.length > 0 ? found : api.listServers(ctx, filter);
    },
    async getServer(ctx, id) {
      const found = (await kept(ctx))?.find((s) => s.id === id);
      return found ?? (await api.getServer(ctx, id));
    },
  };
}
