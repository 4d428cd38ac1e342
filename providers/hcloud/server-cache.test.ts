import { afterEach, expect, test } from "bun:test";
import { createServer as createServerInWorld } from "../../sandbox/hcloud/state/servers.ts";
import { createServer } from "../../sandbox/hcloud/testing.ts";
import type { HcloudServersApi } from "./api/servers.ts";
import { cachedServers } from "./server-cache.ts";
import { cluster, type Emulators, startEmulators } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

/** The emulator's servers API, recording each call as `list`, `list name=…` or `get <id>`. */
function counting(api: HcloudServersApi) {
  const calls: string[] = [];
  const counted: HcloudServersApi = {
    listServers(c, filter) {
      calls.push(filter?.name ? `list name=${filter.name}` : "list");
      return api.listServers(c, filter);
    },
    getServer(c, id) {
      calls.push(`get ${id}`);
      return api.getServer(c, id);
    },
  };
  return { calls, counted };
}

test("all: one listing answers lookups by ID and name for the max age, then is read again", async () => {
  e = startEmulators();
  const { ids } = await cluster(e.h, ["node-1", "node-2"]);
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, { mode: "all", maxAgeMs: 10_000 }, e.h.clock.now);
  expect((await servers.getServer(ctx, ids[0]!))?.name).toBe("node-1");
  expect((await servers.listServers(ctx, { name: "node-2" })).map((s) => s.id)).toEqual([ids[1]!]);
  expect(calls).toEqual(["list"]);
  e.h.clock.advance(10_000);
  expect((await servers.getServer(ctx, ids[1]!))?.name).toBe("node-2");
  expect(calls).toEqual(["list", "list"]);
});

test("all: a server missing from the kept listing is asked for on its own before it counts as gone", async () => {
  e = startEmulators();
  const { ids } = await cluster(e.h, ["node-1"]);
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, { mode: "all", maxAgeMs: 10_000 }, e.h.clock.now);
  await servers.getServer(ctx, ids[0]!);
  const later = await createServer(e.h, "node-2");
  expect((await servers.getServer(ctx, later))?.name).toBe("node-2");
  expect(await servers.listServers(ctx, { name: "node-3" })).toEqual([]);
  expect(calls).toEqual(["list", `get ${later}`, "list name=node-3"]);
});

test("all: an unfiltered listing always asks, and refreshes what is kept", async () => {
  e = startEmulators();
  const { ids } = await cluster(e.h, ["node-1"]);
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, { mode: "all", maxAgeMs: 10_000 }, e.h.clock.now);
  await servers.listServers(ctx);
  await servers.listServers(ctx);
  await servers.getServer(ctx, ids[0]!);
  expect(calls).toEqual(["list", "list"]);
});

test("one: each server by ID is kept for the max age; a gone one is not kept", async () => {
  e = startEmulators();
  const { ids } = await cluster(e.h, ["node-1"]);
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, { mode: "one", maxAgeMs: 10_000 }, e.h.clock.now);
  await servers.getServer(ctx, ids[0]!);
  await servers.getServer(ctx, ids[0]!);
  expect(await servers.getServer(ctx, 999_999)).toBeUndefined();
  expect(await servers.getServer(ctx, 999_999)).toBeUndefined();
  expect(calls).toEqual([`get ${ids[0]}`, "get 999999", "get 999999"]);
});

test.each([
  ["off", { mode: "off", maxAgeMs: 10_000 }],
  ["a max age of 0", { mode: "all", maxAgeMs: 0 }],
] as const)("%s: every lookup asks the API", async (_, cache) => {
  e = startEmulators();
  const { ids } = await cluster(e.h, ["node-1"]);
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, cache, e.h.clock.now);
  await servers.getServer(ctx, ids[0]!);
  await servers.getServer(ctx, ids[0]!);
  expect(calls).toEqual([`get ${ids[0]}`, `get ${ids[0]}`]);
});

test("all: a stale listing of more than one page is not read again for one lookup; the server is asked for", async () => {
  e = startEmulators();
  const ids: number[] = [];
  for (let i = 1; i <= 51; i++) {
    ids.push(createServerInWorld(e.h.emulator.world, { name: `node-${i}`, server_type: "cx22" }).server.id);
  }
  const { calls, counted } = counting(e.servers);
  const servers = cachedServers(counted, { mode: "all", maxAgeMs: 10_000 }, e.h.clock.now);
  expect((await servers.getServer(ctx, ids[0]!))?.name).toBe("node-1");
  expect((await servers.getServer(ctx, ids[50]!))?.name).toBe("node-51");
  e.h.clock.advance(10_000);
  expect((await servers.getServer(ctx, ids[1]!))?.name).toBe("node-2");
  expect((await servers.listServers(ctx, { name: "node-3" })).map((s) => s.id)).toEqual([ids[2]!]);
  expect(calls).toEqual(["list", `get ${ids[1]}`, "list name=node-3"]);
  await servers.listServers(ctx); // the bulk refresh: kept again
  await servers.getServer(ctx, ids[3]!);
  expect(calls.slice(3)).toEqual(["list"]);
});
