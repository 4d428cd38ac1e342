import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createKubeClient, PATCH_CONTENT_TYPES, resourcePath } from "./client.ts";
import {
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  type KubeApiError,
  type KubeClient,
  type PatchType,
  Resources,
} from "./client-types.ts";
import type { Node, Service } from "./objects.ts";
import { FakeApiServer, statusBody } from "./testdata/fake-apiserver.ts";
import { apiFailure, fakeClock, plainTransport } from "./testdata/helpers.ts";

let server: FakeApiServer;
let client: KubeClient;

const node = (name: string, labels: Record<string, string> = {}): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, labels },
});

beforeAll(async () => {
  server = await FakeApiServer.start();
  client = createKubeClient(plainTransport(server.url), { qps: 0, burst: 1, userAgent: "kube-client-test/1" });
  for (const n of ["n1", "n2", "n3", "n4", "n5"]) await client.create(Resources.nodes, node(n));
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  server.requests.length = 0;
  server.expireContinue = false;
});

describe("paths", () => {
  test.each([
    [Resources.nodes, {}, "/api/v1/nodes"],
    [Resources.nodes, { name: "n1", namespace: "ignored" }, "/api/v1/nodes/n1"],
    [Resources.nodes, { name: "n1", subresource: "status" }, "/api/v1/nodes/n1/status"],
    [Resources.services, {}, "/api/v1/services"],
    [Resources.services, { namespace: "ns" }, "/api/v1/namespaces/ns/services"],
    [
      Resources.services,
      { namespace: "ns", name: "a b", subresource: "status" },
      "/api/v1/namespaces/ns/services/a%20b/status",
    ],
    [
      Resources.leases,
      { namespace: "kube-system", name: "ccm" },
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ccm",
    ],
    [Resources.tokenReviews, {}, "/apis/authentication.k8s.io/v1/tokenreviews"],
  ])("%o %o → %s", (ref, at, path) => {
    expect(resourcePath(ref, at)).toBe(path);
  });
});

describe("list", () => {
  test("follows continue tokens until the list is whole", async () => {
    const list = await client.list<Node>(Resources.nodes, { limit: 2, labelSelector: "" });
    expect(list.items.map((n) => n.metadata?.name)).toEqual(["n1", "n2", "n3", "n4", "n5"]);
    expect(list.resourceVersion).toBe(String(server.store.rv));
    expect(list.items[0]?.kind).toBe("Node");
    const queries = server.requests.map((r) => Object.fromEntries(r.query));
    expect(queries.map((q) => q.limit)).toEqual(["2", "2", "2"]);
    expect(queries[0]?.continue).toBeUndefined();
    expect(queries[1]?.continue).toBeDefined();
  });

  test("falls back to one whole list when a continue token has expired", async () => {
    server.expireContinue = true;
    const list = await client.list<Node>(Resources.nodes, { limit: 2 });
    expect(list.items).toHaveLength(5);
    expect(server.requests.map((r) => r.query.get("limit"))).toEqual(["2", "2", null]);
  });

  test("keeps what the transform returns for each item, page by page, in order", async () => {
    const seen: string[] = [];
    const list = await client.list<Node>(Resources.nodes, {
      limit: 2,
      transform: (item) => {
        seen.push(`${item.kind}/${item.metadata?.name}`);
        return { kind: item.kind ?? "", metadata: { name: item.metadata?.name?.toUpperCase() ?? "" } };
      },
    });
    expect(seen).toEqual(["Node/n1", "Node/n2", "Node/n3", "Node/n4", "Node/n5"]);
    expect(list.items).toEqual(["N1", "N2", "N3", "N4", "N5"].map((name) => ({ kind: "Node", metadata: { name } })));
  });

  test("passes selectors and sends the user agent", async () => {
    await client.list(Resources.services, {
      namespace: "ns",
      labelSelector: "a=b",
      fieldSelector: "spec.type=LoadBalancer",
    });
    const r = server.requests[0]!;
    expect(r.path).toBe("/api/v1/namespaces/ns/services");
    expect(r.query.get("labelSelector")).toBe("a=b");
    expect(r.query.get("fieldSelector")).toBe("spec.type=LoadBalancer");
    expect(r.headers["user-agent"]).toBe("kube-client-test/1");
  });
});

describe("writes", () => {
  test("creates, reads, updates (409 on a stale version) and deletes a namespaced object", async () => {
    const svc: Service = { metadata: { name: "web", namespace: "default" }, spec: { type: "LoadBalancer" } };
    const created = await client.create(Resources.services, svc);
    expect(created.kind).toBe("Service");
    expect(isAlreadyExists(await apiFailure(client.create(Resources.services, svc)))).toBe(true);
    const got = await client.get<Service>(Resources.services, "web", { namespace: "default" });
    const updated = await client.update(
      Resources.services,
      { ...got, status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
      { subresource: "status" },
    );
    expect(server.requests.at(-1)?.path).toBe("/api/v1/namespaces/default/services/web/status");
    expect(updated.status?.loadBalancer?.ingress?.[0]?.ip).toBe("1.2.3.4");
    const stale = await apiFailure(client.update(Resources.services, got));
    expect(isConflict(stale)).toBe(true);
    expect(stale.reason).toBe("Conflict");
    await client.delete(Resources.services, "web", { namespace: "default", uid: created.metadata?.uid ?? "" });
    expect(JSON.parse(server.requests.at(-1)!.body).preconditions.uid).toBe(created.metadata?.uid);
    expect(isNotFound(await apiFailure(client.get(Resources.services, "web", { namespace: "default" })))).toBe(true);
  });

  const patches: [PatchType, unknown][] = [
    ["strategic", { metadata: { labels: { kind: "strategic" } } }],
    ["merge", { metadata: { labels: { kind: "merge" } } }],
    ["json", [{ op: "add", path: "/metadata/labels/kind", value: "json" }]],
  ];
  test.each(patches)("sends a %s patch with its content type", async (type, body) => {
    const patched = await client.patch<Node>(Resources.nodes, "n1", type, body);
    const r = server.requests.at(-1)!;
    expect(r.method).toBe("PATCH");
    expect(r.headers["content-type"]).toBe(PATCH_CONTENT_TYPES[type]);
    expect(patched.metadata?.labels?.kind).toBe(type);
  });

  test.each([
    [false, "application/json"],
    [true, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"],
  ])("a patch with metadataOnly %p asks for %s", async (metadataOnly, accept) => {
    const patched = await client.patch(
      Resources.nodes,
      "n1",
      "merge",
      { metadata: { labels: { m: "1" } } },
      { metadataOnly },
    );
    expect(server.requests.at(-1)!.headers.accept).toBe(accept);
    expect(patched.metadata?.labels?.m).toBe("1");
  });

  test("refuses a namespaced object without a namespace before sending", async () => {
    await expect(client.get(Resources.services, "web")).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("errors", () => {
  const clock = fakeClock(Date.parse("2030-01-01T00:00:00Z"));
  const cases: [string, number, unknown, Record<string, string>, Partial<KubeApiError>][] = [
    [
      "422 Invalid",
      422,
      statusBody(422, "Invalid", "spec.ports: Required value"),
      {},
      { reason: "Invalid", retryAfterMs: undefined },
    ],
    [
      "429 with Retry-After seconds",
      429,
      statusBody(429, "TooManyRequests", "slow down"),
      { "retry-after": "7" },
      { reason: "TooManyRequests", retryAfterMs: 7000 },
    ],
    [
      "429 with a Retry-After date",
      429,
      "",
      { "retry-after": "Tue, 01 Jan 2030 00:00:30 GMT" },
      { reason: "TooManyRequests", retryAfterMs: 30_000 },
    ],
    [
      "429 with details.retryAfterSeconds",
      429,
      statusBody(429, "TooManyRequests", "x", { retryAfterSeconds: 3 }),
      {},
      { retryAfterMs: 3000 },
    ],
    [
      "502 with an HTML body",
      502,
      "<html>bad gateway</html>",
      {},
      { reason: "Unknown", message: "GET /api/v1/nodes/n1: 502 Unknown: <html>bad gateway</html>" },
    ],
    ["410 from a proxy without a Status", 410, "", {}, { reason: "Gone" }],
  ];
  test.each(cases)("maps %s", async (_, status, body, headers, want) => {
    const c = createKubeClient(plainTransport(server.url), { qps: 0, burst: 1, userAgent: "t", now: clock.now });
    server.failNext(() => true, { status, body, headers });
    const err = await apiFailure(c.get(Resources.nodes, "n1"));
    expect(err.status).toBe(status);
    expect(err).toMatchObject(want);
  });

  test("410 is isGone", async () => {
    server.failNext(() => true, { status: 410, body: statusBody(410, "Expired", "too old") });
    expect(isGone(await apiFailure(client.get(Resources.nodes, "n1")))).toBe(true);
  });

  test("a refused connection is status 0 with the system code", async () => {
    const c = createKubeClient(plainTransport("http://127.0.0.1:1"), { qps: 0, burst: 1, userAgent: "t" });
    const err = await apiFailure(c.list(Resources.nodes));
    expect(err).toMatchObject({ status: 0, reason: "TransportFailed", code: "ECONNREFUSED" });
  });

  test("an abort by the caller rejects with the signal's reason, not a KubeApiError", async () => {
    const ac = new AbortController();
    ac.abort(new Error("shutting down"));
    await expect(client.list(Resources.nodes, { signal: ac.signal })).rejects.toThrow("shutting down");
  });
});

describe("rate limiting", () => {
  test("the client waits for tokens: a burst goes at once, then requests are paced", async () => {
    const clock = fakeClock();
    const c = createKubeClient(plainTransport(server.url), {
      qps: 5,
      burst: 2,
      userAgent: "t",
      now: clock.now,
      sleep: clock.sleep,
    });
    for (let i = 0; i < 4; i++) await c.get(Resources.nodes, "n1");
    expect(clock.sleeps).toEqual([200, 200]);
    expect(server.requests).toHaveLength(4);
  });
});

describe("raw", () => {
  test("reads /healthz as text and /version as JSON", async () => {
    expect(await client.raw("GET", "/healthz")).toBe("ok");
    expect(await client.raw("GET", "/version")).toMatchObject({ gitVersion: "v1.32.0-fake" });
  });
});
