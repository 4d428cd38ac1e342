import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import { type ApiServer, startApiServer } from "./server.ts";
import { brief, client, type Json, labels, node, openWatch } from "./testing.ts";

// bunfig's [test] timeout is not applied by bun 1.4.5; a busy CI machine needs more than the 5 s default.
setDefaultTimeout(60_000);

let server: ApiServer;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startApiServer({ bookmarkIntervalMs: 0, compactionWindow: 50 });
  api = client(server.url);
});
afterAll(() => server.stop());

const names = (list: Json): string[] => list.items.map((o: Json) => o.metadata.name);
const cm = (name: string, l: Record<string, string> = {}) => ({ metadata: { name, labels: l } });

describe("list", () => {
  beforeAll(async () => {
    await api.post("/api/v1/namespaces", { metadata: { name: "sel" } });
    await api.post("/api/v1/namespaces/sel/configmaps", cm("a", { env: "prod", tier: "web" }));
    await api.post("/api/v1/namespaces/sel/configmaps", cm("b", { env: "dev" }));
    await api.post("/api/v1/namespaces/sel/configmaps", cm("c", {}));
    await api.post("/api/v1/namespaces/default/configmaps", cm("elsewhere", { env: "prod" }));
  });

  test.each([
    ["env=prod", ["a"]],
    ["env!=prod", ["b", "c"]],
    ["env in (prod,dev)", ["a", "b"]],
    ["env notin (dev)", ["a", "c"]],
    ["tier", ["a"]],
    ["!env", ["c"]],
  ])("labelSelector %s", async (selector, want) => {
    const r = await api.get(`/api/v1/namespaces/sel/configmaps?labelSelector=${encodeURIComponent(selector)}`);
    expect(names(r.body)).toEqual(want);
  });

  test("fieldSelector on metadata, across namespaces", async () => {
    const r = await api.get(
      `/api/v1/configmaps?fieldSelector=${encodeURIComponent("metadata.name!=b,metadata.namespace=sel")}`,
    );
    expect(names(r.body)).toEqual(["a", "c"]);
  });

  test("fieldSelector on events' involvedObject, type and reason", async () => {
    const ev = (name: string, kind: string, reason: string) => ({
      metadata: { name },
      involvedObject: { kind, name: "x", namespace: "sel" },
      reason,
      type: "Normal",
      message: "m",
    });
    await api.post("/api/v1/namespaces/sel/events", ev("e1", "Service", "Ensured"));
    await api.post("/api/v1/namespaces/sel/events", ev("e2", "Pod", "Ensured"));
    const sel = "involvedObject.kind=Service,involvedObject.name=x,type=Normal,reason=Ensured";
    expect(
      names((await api.get(`/api/v1/namespaces/sel/events?fieldSelector=${encodeURIComponent(sel)}`)).body),
    ).toEqual(["e1"]);
  });

  test("an unsupported field is 400", async () => {
    const r = await api.get("/api/v1/nodes?fieldSelector=spec.foo%3D1");
    expect(r.body).toMatchObject({ code: 400, reason: "BadRequest", message: "field label not supported: spec.foo" });
  });

  test("pages with limit and continue read one consistent snapshot", async () => {
    await api.post("/api/v1/namespaces", { metadata: { name: "pages" } });
    for (const n of ["p1", "p2", "p3", "p4", "p5"]) await api.post("/api/v1/namespaces/pages/configmaps", cm(n));
    const first = (await api.get("/api/v1/namespaces/pages/configmaps?limit=2")).body;
    expect(names(first)).toEqual(["p1", "p2"]);
    expect(first.metadata.continue).toBeString();
    // Changes after the first page do not show up in later pages.
    await api.del("/api/v1/namespaces/pages/configmaps/p3");
    await api.post("/api/v1/namespaces/pages/configmaps", cm("p6"));
    const second = (await api.get(`/api/v1/namespaces/pages/configmaps?limit=2&continue=${first.metadata.continue}`))
      .body;
    expect(names(second)).toEqual(["p3", "p4"]);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const third = (await api.get(`/api/v1/namespaces/pages/configmaps?limit=2&continue=${second.metadata.continue}`))
      .body;
    expect(names(third)).toEqual(["p5"]);
    expect(third.metadata.continue).toBeUndefined();
  });

  test("a continue token older than the history is 410 Expired", async () => {
    const first = (await api.get("/api/v1/namespaces/pages/configmaps?limit=1")).body;
    await api.post("/api/v1/namespaces/pages/configmaps", cm("p7"));
    server.faults.compact();
    const r = await api.get(`/api/v1/namespaces/pages/configmaps?limit=1&continue=${first.metadata.continue}`);
    expect(r.status).toBe(410);
    expect(r.body.reason).toBe("Expired");
  });

  test("a resourceVersion from the future is 504 Timeout", async () => {
    const r = await api.get(`/api/v1/nodes?resourceVersion=${Number(server.store.resourceVersion) + 100}`);
    expect(r.status).toBe(504);
  });

  test("the Table format kubectl asks for", async () => {
    await api.post("/api/v1/nodes", node("tbl", labels({ "node-role.kubernetes.io/control-plane": "" })));
    const r = await api.get("/api/v1/nodes?fieldSelector=metadata.name%3Dtbl", {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    });
    expect(r.headers.get("content-type")).toBe("application/json;as=Table;v=v1;g=meta.k8s.io");
    expect(r.body.columnDefinitions.filter((c: Json) => c.priority === 0).map((c: Json) => c.name)).toEqual([
      "Name",
      "Status",
      "Roles",
      "Age",
      "Version",
    ]);
    expect(r.body.rows[0].cells.slice(0, 3)).toEqual(["tbl", "Unknown", "control-plane"]);
    expect(r.body.rows[0].object.kind).toBe("PartialObjectMetadata");
  });

  test("metadata-only lists for metadata informers", async () => {
    const r = await api.get("/api/v1/namespaces/sel/configmaps?labelSelector=env%3Dprod", {
      accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json",
    });
    expect(r.body.kind).toBe("PartialObjectMetadataList");
    expect(r.body.items[0]).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: expect.objectContaining({ name: "a" }),
    });
  });

  test("a protobuf-only Accept is 406", async () => {
    expect((await api.get("/api/v1/nodes", { accept: "application/vnd.kubernetes.protobuf" })).status).toBe(406);
  });
});

describe("watch", () => {
  test("from a version delivers exactly the later events, in order", async () => {
    await api.post("/api/v1/nodes", node("w-before"));
    const from = server.store.resourceVersion;
    const a = (await api.post("/api/v1/nodes", node("w-a"))).body;
    await api.patch("/api/v1/nodes/w-a", { metadata: { labels: { x: "1" } } }, "merge");
    await api.del("/api/v1/nodes/w-a");
    const w = await openWatch(server.url, `/api/v1/nodes?watch=true&resourceVersion=${from}`);
    expect(w.status).toBe(200);
    const rv = Number(a.metadata.resourceVersion);
    const got = [await w.next(), await w.next(), await w.next()].map(brief);
    expect(got).toEqual([`ADDED w-a@${rv}`, `MODIFIED w-a@${rv + 1}`, `DELETED w-a@${rv + 2}`]);
    // Then live events; a marker shows nothing else came in between.
    await api.post("/api/v1/nodes", node("w-live"));
    expect(brief(await w.next())).toBe(`ADDED w-live@${rv + 3}`);
    w.close();
  });

  test("without a version it starts with the current state as ADDED", async () => {
    const w = await openWatch(server.url, "/api/v1/namespaces/sel/configmaps?watch=1");
    const first = [await w.next(), await w.next(), await w.next()];
    expect(first.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED a", "ADDED b", "ADDED c"]);
    w.close();
  });

  test("watch-list (sendInitialEvents) ends the initial state with a marked bookmark", async () => {
    const w = await openWatch(
      server.url,
      "/api/v1/namespaces/sel/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
    );
    const got = [await w.next(), await w.next(), await w.next(), await w.next()];
    expect(got.map((e) => e.type)).toEqual(["ADDED", "ADDED", "ADDED", "BOOKMARK"]);
    expect(got[3]!.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
    w.close();
  });

  test("selectors turn changes into ADDED and DELETED as objects enter and leave", async () => {
    await api.post("/api/v1/nodes", node("w-sel"));
    const w = await openWatch(
      server.url,
      `/api/v1/nodes?watch=true&labelSelector=pool%3Dblue&resourceVersion=${server.store.resourceVersion}`,
    );
    await api.patch("/api/v1/nodes/w-sel", { metadata: { labels: { pool: "blue" } } }, "merge");
    await api.patch("/api/v1/nodes/w-sel", { metadata: { labels: { pool: "green" } } }, "merge");
    const added = await w.next();
    const deleted = await w.next();
    expect([added.type, deleted.type]).toEqual(["ADDED", "DELETED"]);
    expect(deleted.object.metadata.labels.pool).toBe("blue"); // the last state that matched
    w.close();
  });

  test("a compacted version is 410 Expired: as an ERROR event, or as HTTP 410", async () => {
    const old = server.store.resourceVersion;
    await api.post("/api/v1/nodes", node("w-gone"));
    server.faults.compact();
    const w = await openWatch(server.url, `/api/v1/nodes?watch=true&resourceVersion=${old}`);
    expect(w.status).toBe(200);
    const [err, ...rest] = await w.rest();
    expect(err?.type).toBe("ERROR");
    expect(err?.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
    expect(rest).toEqual([]);
    server.faults.watchGone = "http";
    const r = await api.get(`/api/v1/nodes?watch=true&resourceVersion=${old}`);
    expect(r.status).toBe(410);
    expect(r.body.reason).toBe("Expired");
    server.faults.watchGone = "event";
  });

  test("history beyond the compaction window expires", async () => {
    const old = server.store.resourceVersion;
    for (let i = 0; i < 120; i++) await api.post("/api/v1/namespaces/default/configmaps", cm(`flood-${i}`));
    const r = await openWatch(server.url, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${old}`);
    expect((await r.next()).object.code).toBe(410);
    r.close();
  });

  test("bookmarks carry the current resourceVersion, only when allowed", async () => {
    const with_ = await openWatch(
      server.url,
      `/api/v1/nodes?watch=true&allowWatchBookmarks=true&resourceVersion=${server.store.resourceVersion}`,
    );
    const without = await openWatch(
      server.url,
      `/api/v1/nodes?watch=true&resourceVersion=${server.store.resourceVersion}`,
    );
    await api.post("/api/v1/namespaces/default/configmaps", cm("bump"));
    server.sendBookmarks();
    const bm = await with_.next();
    expect(bm).toEqual({
      type: "BOOKMARK",
      object: { kind: "Node", apiVersion: "v1", metadata: { resourceVersion: server.store.resourceVersion } },
    });
    await api.post("/api/v1/nodes", node("w-after-bookmark"));
    expect((await without.next()).type).toBe("ADDED");
    with_.close();
    without.close();
  });

  test("timeoutSeconds ends the stream", async () => {
    const w = await openWatch(
      server.url,
      `/api/v1/nodes?watch=true&timeoutSeconds=1&resourceVersion=${server.store.resourceVersion}`,
    );
    expect(await w.rest()).toEqual([]);
  });

  test("faults end open watches: dropped, or with an ERROR 410", async () => {
    const a = await openWatch(server.url, `/api/v1/nodes?watch=true&resourceVersion=${server.store.resourceVersion}`);
    // The watch is registered before its response headers are sent, so it is open now.
    expect(server.faults.dropWatches()).toBeGreaterThanOrEqual(1);
    expect(await a.rest()).toEqual([]);
    const b = await openWatch(server.url, `/api/v1/nodes?watch=true&resourceVersion=${server.store.resourceVersion}`);
    server.faults.expireWatches();
    const events = await b.rest();
    expect(events.map((e) => [e.type, e.object.code])).toEqual([["ERROR", 410]]);
  });

  test("events written through events.k8s.io/v1 show up in core/v1 watches and lists", async () => {
    const w = await openWatch(
      server.url,
      `/api/v1/namespaces/default/events?watch=true&resourceVersion=${server.store.resourceVersion}`,
    );
    const created = await api.post("/apis/events.k8s.io/v1/namespaces/default/events", {
      metadata: { name: "ev1" },
      eventTime: "2026-05-01T10:00:00.000000Z",
      reportingController: "ccm",
      reportingInstance: "ccm-1",
      action: "Sync",
      reason: "Synced",
      type: "Normal",
      note: "hello",
      regarding: { kind: "Node", name: "n1" },
    });
    expect(created.status).toBe(201);
    const ev = await w.next();
    expect(ev.object).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      message: "hello",
      reportingComponent: "ccm",
      involvedObject: { name: "n1" },
    });
    w.close();
    const v1 = await api.get("/apis/events.k8s.io/v1/namespaces/default/events/ev1");
    expect(v1.body).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "hello", regarding: { name: "n1" } });
    expect(server.store.get(Resources.events, "ev1", { namespace: "default" })).toMatchObject({ message: "hello" });
  });
});
