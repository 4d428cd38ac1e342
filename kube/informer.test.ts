import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createKubeClient } from "./client.ts";
import { Resources } from "./client-types.ts";
import type { Sleep } from "./clock.ts";
import { createInformer, type Informer, type InformerOptions, waitForCacheSync } from "./informer.ts";
import { createInformerFactory } from "./informer-factory.ts";
import type { Node } from "./objects.ts";
import { FakeApiServer } from "./testdata/fake-apiserver.ts";
import { memoryLogger, waitFor } from "./testdata/helpers.ts";
import { kubeletNode } from "./testdata/kubelet-node.ts";

const NODES = "/v1/nodes";
let server: FakeApiServer;
let ac: AbortController;
let running: Promise<void>[];

beforeEach(async () => {
  server = await FakeApiServer.start();
  ac = new AbortController();
  running = [];
});

afterEach(async () => {
  ac.abort();
  await Promise.all(running);
  await server.close();
});

const clientFor = (s: FakeApiServer) =>
  createKubeClient(
    {
      server: s.url,
      source: "test",
      namespace: undefined,
      identity: "no user (anonymous)",
      settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
      unauthorized() {},
    },
    { qps: 0, burst: 1, userAgent: "kube-informer-test" },
  );

const addNode = (name: string, labels: Record<string, string> = {}) =>
  server.store.create(NODES, { apiVersion: "v1", kind: "Node", metadata: { name, labels } });
const labelNode = (name: string, labels: Record<string, string>) =>
  server.store.patch(NODES, undefined, name, "application/merge-patch+json", { metadata: { labels } });

/** Starts a node informer with a handler that logs every call; sleeps are recorded and return at once. */
function startInformer(opts: Partial<InformerOptions<Node>> = {}) {
  const sleeps: number[] = [];
  const sleep: Sleep = async (ms, signal) => {
    if (signal?.aborted) return;
    sleeps.push(ms);
    await Bun.sleep(0);
  };
  const inf = createInformer<Node>({
    client: clientFor(server),
    ref: Resources.nodes,
    logger: memoryLogger(),
    sleep,
    pageSize: 2,
    ...opts,
  });
  const log: string[] = [];
  const n = (o: Node) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  inf.addEventHandler({
    onAdd: (o) => log.push(`add ${n(o)}`),
    onUpdate: (a, b) => log.push(`update ${n(a)}→${b.metadata?.resourceVersion}`),
    onDelete: (o) => log.push(`delete ${o.metadata?.name}`),
  });
  running.push(inf.run(ac.signal));
  return { inf, log, sleeps };
}

const cacheNames = (inf: Informer<Node>) => inf.keys().sort();
const serverNames = () => server.store.list(NODES).map((o) => o.metadata.name);
const rvOf = (name: string) => server.store.get(NODES, undefined, name).metadata.resourceVersion;

describe("informer", () => {
  test("lists page by page, then watches; the cache and the handlers follow the server", async () => {
    for (const name of ["a", "b", "c"]) addNode(name);
    const { inf, log } = startInformer();
    expect(await waitForCacheSync([inf], ac.signal)).toBe(true);
    expect(log).toEqual([`add a@${rvOf("a")}`, `add b@${rvOf("b")}`, `add c@${rvOf("c")}`]);
    expect(server.requests.filter((r) => r.query.get("limit") === "2")).toHaveLength(2);
    await waitFor(() => server.liveWatchers() === 1, "watching");
    const watch = server.requests.find((r) => r.query.get("watch") === "true")!;
    expect(watch.query.get("allowWatchBookmarks")).toBe("true");
    const oldB = rvOf("b");
    labelNode("b", { zone: "z1" });
    server.store.delete(NODES, undefined, "a");
    addNode("d");
    await waitFor(() => log.length === 6, "three more events");
    expect(log.slice(3)).toEqual([`update b@${oldB}→${rvOf("b")}`, "delete a", `add d@${rvOf("d")}`]);
    expect(cacheNames(inf)).toEqual(serverNames());
    expect(inf.get("b")?.metadata?.labels?.zone).toBe("z1");
  });

  test("handlers added later get a synthetic add for every cached object", async () => {
    addNode("a");
    addNode("b");
    const { inf } = startInformer();
    await inf.whenSynced();
    const seen: string[] = [];
    inf.addEventHandler({ onAdd: (o) => seen.push(o.metadata?.name ?? "") });
    expect(seen.sort()).toEqual(["a", "b"]);
  });

  test("keeps indexes current through updates and deletes", async () => {
    addNode("a", { zone: "z1" });
    addNode("b", { zone: "z1" });
    const { inf, log } = startInformer();
    inf.addIndexer("zone", (o) => (o.metadata?.labels?.zone ? [o.metadata.labels.zone] : []));
    await inf.whenSynced();
    expect(
      inf
        .byIndex("zone", "z1")
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(["a", "b"]);
    labelNode("a", { zone: "z2" });
    server.store.delete(NODES, undefined, "b");
    await waitFor(() => log.length === 4, "update and delete");
    expect(inf.byIndex("zone", "z1")).toEqual([]);
    expect(inf.byIndex("zone", "z2").map((o) => o.metadata?.name)).toEqual(["a"]);
  });

  test("strips managedFields by default, or applies the given transform", async () => {
    server.store.create(NODES, { metadata: { name: "m", managedFields: [{ manager: "kubectl" }] } });
    const { inf } = startInformer();
    await inf.whenSynced();
    expect(inf.get("m")?.metadata?.managedFields).toBeUndefined();
    const other = createInformer<Node>({
      client: clientFor(server),
      ref: Resources.nodes,
      logger: memoryLogger(),
      transform: (o) => ({ ...o, metadata: { ...o.metadata, labels: { transformed: "yes" } } }),
    });
    running.push(other.run(ac.signal));
    await other.whenSynced();
    expect(other.get("m")?.metadata?.labels).toEqual({ transformed: "yes" });
  });

  test("resumes a dropped watch from the last resourceVersion, losing and repeating nothing", async () => {
    addNode("a");
    const { inf, log } = startInformer();
    await inf.whenSynced();
    await waitFor(() => server.liveWatchers() === 1, "watching");
    addNode("b");
    await waitFor(() => log.length === 2, "add b");
    const lastSeen = rvOf("b");
    server.destroyWatches();
    addNode("c");
    labelNode("a", { x: "1" });
    await waitFor(() => log.length === 4, "changes made while disconnected");
    expect(log.slice(2)).toEqual([`add c@${rvOf("c")}`, expect.stringMatching(/^update a@\d+→\d+$/)]);
    const rewatch = server.requests.filter((r) => r.query.get("watch") === "true").at(-1)!;
    expect(rewatch.query.get("resourceVersion")).toBe(lastSeen ?? "");
    expect(server.requests.filter((r) => r.query.has("limit"))).toHaveLength(1); // no re-list
    expect(cacheNames(inf)).toEqual(serverNames());
  });

  test("detects a silent connection by the idle timeout and resumes", async () => {
    const { inf, log } = startInformer({ watchIdleTimeoutMs: 300 });
    await inf.whenSynced();
    await waitFor(() => server.liveWatchers() === 1, "watching");
    server.silenceWatches();
    addNode("late");
    await waitFor(() => log.length === 1, "the event sent after the silence");
    expect(log).toEqual([`add late@${rvOf("late")}`]);
    expect(server.watchRequests).toBeGreaterThanOrEqual(2);
  });

  test.each(["http", "event"] as const)(
    "re-lists after 410 Gone (as %s) and delivers exactly the differences",
    async (goneAs) => {
      for (const name of ["x1", "x2", "x3"]) addNode(name);
      const { inf, log } = startInformer();
      await inf.whenSynced();
      await waitFor(() => server.liveWatchers() === 1, "watching");
      server.goneAs = goneAs;
      server.silenceWatches(); // the changes below never reach the open watch
      const oldX2 = rvOf("x2");
      server.store.delete(NODES, undefined, "x1");
      labelNode("x2", { changed: "yes" });
      addNode("x4");
      server.store.compact();
      server.destroyWatches();
      await waitFor(() => log.length === 6, "three differences");
      expect(log.slice(3)).toEqual(["delete x1", `update x2@${oldX2}→${rvOf("x2")}`, `add x4@${rvOf("x4")}`]);
      expect(server.requests.filter((r) => r.query.has("limit") && !r.query.has("continue"))).toHaveLength(2);
      expect(cacheNames(inf)).toEqual(serverNames());
      addNode("x5"); // and it watches again afterwards
      await waitFor(() => log.length === 7, "a later event");
    },
  );

  test("a re-list keeps the cached instance of each unchanged object and transforms only what changed", async () => {
    addNode("a");
    addNode("b");
    const transformed: string[] = [];
    const { inf } = startInformer({
      transform: (o) => {
        transformed.push(`${o.metadata?.name}@${o.metadata?.resourceVersion}`);
        return { ...o };
      },
    });
    await inf.whenSynced();
    const a = inf.get("a");
    const oldB = rvOf("b");
    // Every version is gone from now on: the informer lists again and again, and b changes in between.
    server.store.compactedBelow = Number.MAX_SAFE_INTEGER;
    labelNode("b", { zone: "z1" });
    const lists = () => server.requests.filter((r) => r.query.has("limit")).length;
    const listed = lists();
    await waitFor(() => lists() >= listed + 4, "four more lists");
    await waitFor(() => inf.get("b")?.metadata?.labels?.zone === "z1", "b's change cached");
    expect(inf.get("a")).toBe(a as Node);
    expect(transformed.filter((t) => t.startsWith("a@"))).toEqual([`a@${rvOf("a")}`]);
    expect(transformed.filter((t) => t.startsWith("b@"))).toEqual([`b@${oldB}`, `b@${rvOf("b")}`]);
  });

  test("a server that expires every version at once is re-listed with back-off, not in a tight loop", async () => {
    addNode("a");
    server.store.compactedBelow = Number.MAX_SAFE_INTEGER;
    const { sleeps } = startInformer({ backoff: { initialMs: 200, maxMs: 1000 } });
    await waitFor(() => sleeps.length >= 5, "several re-lists");
    expect(sleeps.slice(0, 5)).toEqual([200, 400, 800, 1000, 1000]);
    const lists = server.requests.filter((r) => r.query.has("limit")).length;
    expect(lists).toBeGreaterThanOrEqual(5);
    expect(lists).toBeLessThanOrEqual(sleeps.length + 1);
  });

  test("backs off doubling up to the maximum, never gives up, and resets after success", async () => {
    server.failNext((r) => r.query.has("limit"), { status: 500, body: { kind: "Status", code: 500 } }, 6);
    const { inf, sleeps } = startInformer({ backoff: { initialMs: 200, maxMs: 1000 } });
    await inf.whenSynced();
    expect(sleeps).toEqual([200, 400, 800, 1000, 1000, 1000]);
    await waitFor(() => server.liveWatchers() === 1, "watching");
    server.destroyWatches();
    await waitFor(() => sleeps.length === 7, "one more back-off");
    expect(sleeps[6]).toBe(200);
  });

  test("resync re-delivers every cached object as an update to itself", async () => {
    addNode("a");
    let tick: () => void = () => {};
    const sleep: Sleep = (ms, signal) =>
      ms === 3_600_000
        ? new Promise<void>((resolve) => {
            tick = resolve;
            signal?.addEventListener("abort", () => resolve(), { once: true });
          })
        : Promise.resolve();
    const { inf, log } = startInformer({ resyncMs: 3_600_000, sleep });
    await inf.whenSynced();
    await waitFor(() => log.length === 1, "add");
    tick();
    await waitFor(() => log.length === 2, "resync");
    expect(log[1]).toBe(`update a@${rvOf("a")}→${rvOf("a")}`);
  });

  test("waitForCacheSync answers false when the signal aborts before the sync", async () => {
    server.failNext(() => true, { status: 503, body: "" }, 1_000_000);
    const { inf } = startInformer({ backoff: { initialMs: 1, maxMs: 1 } });
    const give = new AbortController();
    const synced = waitForCacheSync([inf], give.signal);
    give.abort();
    expect(await synced).toBe(false);
    expect(inf.hasSynced()).toBe(false);
  });

  test("stops when its signal aborts and closes its watch", async () => {
    const { inf } = startInformer();
    await inf.whenSynced();
    await waitFor(() => server.liveWatchers() === 1, "watching");
    ac.abort();
    await Promise.all(running);
    await waitFor(() => server.watchers.size === 0, "server saw the watch close");
  });
});

describe("informer factory", () => {
  test("shares one informer per resource and selection, and starts those requested later", async () => {
    addNode("a");
    const factory = createInformerFactory({ client: clientFor(server), logger: memoryLogger() });
    const first = factory.forResource<Node>(Resources.nodes);
    expect(factory.forResource<Node>(Resources.nodes)).toBe(first);
    expect(factory.forResource<Node>(Resources.nodes, { labelSelector: "x=y" })).not.toBe(first);
    factory.start(ac.signal);
    const services = factory.forResource(Resources.services);
    expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
    expect(first.keys()).toEqual(["a"]);
    expect(services.hasSynced()).toBe(true);
    ac.abort();
    await factory.stopped();
  });

  test("caches a kind's keep-list, widened by the first request's extra fields", async () => {
    server.store.create(NODES, JSON.parse(JSON.stringify(kubeletNode("k"))));
    const factory = createInformerFactory({ client: clientFor(server), logger: memoryLogger() });
    const nodes = factory.forResource<Node>(Resources.nodes, { keep: ["status.nodeInfo.kubeletVersion"] });
    factory.start(ac.signal);
    expect(await factory.waitForCacheSync(ac.signal)).toBe(true);
    const cached = nodes.get("k");
    expect(cached?.status?.nodeInfo as unknown).toEqual({
      kubeletVersion: "v1.28.4",
      systemUUID: kubeletNode("k").status?.nodeInfo?.systemUUID,
    });
    expect(cached?.status?.images).toBeUndefined();
    expect(cached?.metadata?.managedFields).toBeUndefined();
    expect(cached?.spec?.taints).toEqual(kubeletNode("k").spec?.taints as []);
  });

  test.each([
    ["no extra fields", undefined],
    ["fields it keeps already", ["status.nodeInfo.kubeletVersion", "spec.providerID"] as const],
  ])("a later request with %s shares the informer", (_what, keep) => {
    const factory = createInformerFactory({ client: clientFor(server), logger: memoryLogger() });
    const first = factory.forResource<Node>(Resources.nodes, { keep: ["status.nodeInfo.kubeletVersion"] });
    expect(factory.forResource<Node>(Resources.nodes, keep ? { keep } : {})).toBe(first);
  });

  test("refuses a later request for a field the running informer does not keep, naming it", () => {
    const factory = createInformerFactory({ client: clientFor(server), logger: memoryLogger() });
    factory.forResource<Node>(Resources.nodes);
    expect(() => factory.forResource<Node>(Resources.nodes, { keep: ["status.images", "spec.providerID"] })).toThrow(
      "the nodes informer already runs without status.images: ask for these fields (keep) in the first request",
    );
  });
});
