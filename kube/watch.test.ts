import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createKubeClient } from "./client.ts";
import { isGone, KubeApiError, type KubeClient, Resources, type WatchEvent } from "./client-types.ts";
import { isWatchIdleTimeout, type Requester } from "./http.ts";
import type { KubeObject, Node } from "./objects.ts";
import { FakeApiServer } from "./testdata/fake-apiserver.ts";
import { waitFor } from "./testdata/helpers.ts";
import { decodeEvent, watchStream } from "./watch.ts";

let server: FakeApiServer;
let client: KubeClient;

beforeAll(async () => {
  server = await FakeApiServer.start();
  client = createKubeClient(
    {
      server: server.url,
      source: "test",
      namespace: undefined,
      identity: "no user (anonymous)",
      settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
      unauthorized() {},
    },
    { qps: 0, burst: 1, userAgent: "kube-watch-test" },
  );
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  server.goneAs = "http";
  server.store.compactedBelow = 0;
});

const rv = () => String(server.store.rv);

/** Consumes a watch in the background; `events` fills as they arrive, `done` settles when it ends. */
function consume(opts: { resourceVersion: string; idleTimeoutMs?: number; signal?: AbortSignal }) {
  const events: WatchEvent<Node>[] = [];
  const done = (async () => {
    for await (const ev of client.watch<Node>(Resources.nodes, { ...opts, allowWatchBookmarks: true })) events.push(ev);
  })();
  return { events, done };
}

const names = (evs: WatchEvent<Node>[]) => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ""}`);

describe("watch", () => {
  test("delivers events in the order they were sent, bookmarks included", async () => {
    const ac = new AbortController();
    const w = consume({ resourceVersion: rv(), signal: ac.signal });
    await waitFor(() => server.liveWatchers() === 1, "watch connected");
    await server.store.create("/v1/nodes", { metadata: { name: "w1" } });
    server.store.patch("/v1/nodes", undefined, "w1", "application/merge-patch+json", {
      metadata: { labels: { a: "1" } },
    });
    server.store.create("/v1/nodes", { metadata: { name: "w2" } });
    server.store.delete("/v1/nodes", undefined, "w1");
    server.bookmark();
    await waitFor(() => w.events.length === 5, "five events");
    expect(names(w.events)).toEqual(["ADDED w1", "MODIFIED w1", "ADDED w2", "DELETED w1", "BOOKMARK "]);
    expect(w.events[4]?.object.metadata?.resourceVersion).toBe(rv());
    ac.abort();
    await w.done; // an abort ends the watch quietly
    await waitFor(() => server.watchers.size === 0, "server saw the connection close");
  });

  test("reassembles an event split across two writes", async () => {
    const ac = new AbortController();
    const w = consume({ resourceVersion: rv(), signal: ac.signal });
    await waitFor(() => server.liveWatchers() === 1, "watch connected");
    server.splitNextEvent = true;
    server.store.create("/v1/nodes", { metadata: { name: "split-node", labels: { long: "x".repeat(200) } } });
    server.store.create("/v1/nodes", { metadata: { name: "after-split" } });
    await waitFor(() => w.events.length === 2, "both events");
    expect(names(w.events)).toEqual(["ADDED split-node", "ADDED after-split"]);
    expect(w.events[0]?.object.metadata?.labels?.long).toHaveLength(200);
    ac.abort();
    await w.done;
  });

  test.each(["http", "event"] as const)("an expired resourceVersion answered as %s throws a 410", async (goneAs) => {
    server.goneAs = goneAs;
    const old = rv();
    server.store.create("/v1/nodes", { metadata: { name: `gone-${goneAs}` } });
    server.store.compact();
    const err = await consume({ resourceVersion: old }).done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(isGone(err)).toBe(true);
  });

  test("a silent connection ends with an idle-timeout error and is closed", async () => {
    const w = consume({ resourceVersion: rv(), idleTimeoutMs: 300 });
    await waitFor(() => server.liveWatchers() === 1, "watch connected");
    server.silenceWatches();
    server.store.create("/v1/nodes", { metadata: { name: "never-seen" } });
    const err = await w.done.catch((e: unknown) => e);
    expect(isWatchIdleTimeout(err)).toBe(true);
    expect(w.events).toHaveLength(0);
    await waitFor(() => server.watchers.size === 0, "server saw the connection close");
  });

  test("breaking out of the loop frees the connection", async () => {
    const start = rv();
    server.store.create("/v1/nodes", { metadata: { name: "break-me" } });
    for await (const ev of client.watch<Node>(Resources.nodes, { resourceVersion: start })) {
      expect(ev.object.metadata?.name).toBe("break-me");
      break;
    }
    await waitFor(() => server.watchers.size === 0, "server saw the connection close");
  });

  test("a reset connection is an error with status 0", async () => {
    const w = consume({ resourceVersion: rv() });
    await waitFor(() => server.liveWatchers() === 1, "watch connected");
    server.destroyWatches();
    const err = await w.done.catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0 });
  });
});

describe("stream decoding", () => {
  /** A requester whose response body arrives in exactly these byte chunks. */
  const chunked = (chunks: Uint8Array[]): Requester => ({
    send: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            for (const chunk of chunks) c.enqueue(chunk);
            c.close();
          },
        }),
      ),
    text: async (_req, res) => res.text(),
    json: async <T>(_req: unknown, res: Response) => (await res.json()) as T,
  });

  test("joins a line cut inside a multi-byte character", async () => {
    const bytes = new TextEncoder().encode(
      `${JSON.stringify({ type: "ADDED", object: { metadata: { name: "nœud" } } })}\n${JSON.stringify({ type: "DELETED", object: { metadata: { name: "b" } } })}\n`,
    );
    const cut = bytes.indexOf(0xc5) + 1; // between the two bytes of "œ"
    const got: WatchEvent<KubeObject>[] = [];
    for await (const ev of watchStream<KubeObject>(chunked([bytes.slice(0, cut), bytes.slice(cut)]), "/x", {}))
      got.push(ev);
    expect(got.map((e) => e.object.metadata?.name)).toEqual(["nœud", "b"]);
  });

  test("a stream cut inside an event is a transport failure", async () => {
    const bytes = new TextEncoder().encode('{"type":"ADDED","object":{"metad');
    const run = async () => {
      for await (const _ of watchStream(chunked([bytes]), "/x", {})) {
        // nothing arrives
      }
    };
    await expect(run()).rejects.toMatchObject({ status: 0, reason: "TransportFailed" });
  });

  test.each([
    ['{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}}', 410, "Expired"],
    ['{"type":"ERROR","object":{"kind":"Status","code":500,"message":"boom"}}', 500, "InternalError"],
    ["not json", 0, "WatchDecode"],
    ['{"type":"ADDED"}', 0, "WatchDecode"],
  ])("decodes %s as an error", (line, status, reason) => {
    expect(() => decodeEvent("/x", line)).toThrow(expect.objectContaining({ status, reason }));
  });

  test("skips unknown event types", () => {
    expect(decodeEvent("/x", '{"type":"FUTURE","object":{}}')).toBeUndefined();
  });
});
