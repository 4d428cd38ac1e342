import { describe, expect, test } from "bun:test";
import { isAlreadyExists, isConflict, isNotFound, KubeApiError, Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { EmulatorKubeClient } from "./emulator-client.ts";

const node = (name: string, labels: Record<string, string> = {}): Node => ({ metadata: { name, labels } });
const ports = [{ port: 80 }];
const service = (name: string, namespace = "default"): Service => ({ metadata: { name, namespace }, spec: { ports } });

const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("EmulatorKubeClient objects", () => {
  test("creates with identity metadata and answers get and list", async () => {
    const client = new EmulatorKubeClient({ now: () => Date.parse("2026-01-01T00:00:00Z") });
    const before = Number(client.resourceVersion);
    const created = await client.create(Resources.nodes, node("n1"));
    expect(created.metadata?.uid).toBeString();
    expect(created.metadata?.resourceVersion).toBe(String(before + 1));
    expect(created.metadata?.creationTimestamp).toBe("2026-01-01T00:00:00Z");
    expect(created.apiVersion).toBe("v1");
    expect(created.kind).toBe("Node");
    expect((await client.get<Node>(Resources.nodes, "n1")).metadata?.name).toBe("n1");
    expect((await client.list(Resources.nodes)).resourceVersion).toBe(String(before + 1));
  });

  test.each([
    ["role=a", ["a1"]],
    ["role!=a", ["b1", "none"]],
    ["role", ["a1", "b1"]],
    ["!role", ["none"]],
    ["role in (a,b)", ["a1", "b1"]],
    ["role notin (a)", ["b1", "none"]],
  ])("label selector %s", async (selector, names) => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("a1", { role: "a" }), node("b1", { role: "b" }), node("none"));
    const { items } = await client.list<Node>(Resources.nodes, { labelSelector: selector });
    expect(items.map((n) => n.metadata?.name)).toEqual(names);
  });

  test("field selector and namespace filter lists", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.services, service("s1", "a"), service("s2", "a"), service("s1", "b"));
    const inA = await client.list<Service>(Resources.services, { namespace: "a" });
    expect(inA.items.map((s) => s.metadata?.name)).toEqual(["s1", "s2"]);
    const byName = await client.list<Service>(Resources.services, { fieldSelector: "metadata.name=s1" });
    expect(byName.items.map((s) => s.metadata?.namespace)).toEqual(["a", "b"]);
  });

  test("answers 404 and 409 AlreadyExists like the API", async () => {
    const client = new EmulatorKubeClient();
    expect(isNotFound(await rejection(client.get(Resources.nodes, "missing")))).toBeTrue();
    await client.create(Resources.nodes, node("n1"));
    const err = await rejection(client.create(Resources.nodes, node("n1")));
    expect(isAlreadyExists(err)).toBeTrue();
    expect((err as Error).message).toBe('nodes "n1" already exists');
    const lease = await rejection(client.get(Resources.leases, "x", { namespace: "kube-system" }));
    expect((lease as Error).message).toBe('leases.coordination.k8s.io "x" not found');
  });

  test("update with a stale resourceVersion conflicts; without one it is unconditional", async () => {
    const client = new EmulatorKubeClient();
    const [n1] = client.seed(Resources.nodes, node("n1"));
    await client.update(Resources.nodes, { ...n1, metadata: { ...n1?.metadata, labels: { a: "1" } } });
    const stale = await rejection(client.update(Resources.nodes, { ...n1, metadata: { ...n1?.metadata, labels: {} } }));
    expect(isConflict(stale)).toBeTrue();
    const forced = await client.update<Node>(Resources.nodes, { metadata: { name: "n1", labels: { b: "2" } } });
    expect(forced.metadata?.labels).toEqual({ b: "2" });
    expect(forced.metadata?.uid).toBe(n1?.metadata?.uid as string);
  });

  test("the status subresource is the only way to write status, and it keeps the spec", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, { metadata: { name: "n1" }, spec: { podCIDR: "a" }, status: { phase: "Running" } });
    await client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { a: "1" } }, status: { phase: "X" } });
    expect(client.peek<Node>(Resources.nodes, "n1")?.status?.phase).toBe("Running");
    const patch = { metadata: { labels: { b: "2" } }, spec: { podCIDR: "b" }, status: { phase: "Y" } };
    await client.patch(Resources.nodes, "n1", "merge", patch, { subresource: "status" });
    const after = client.peek<Node>(Resources.nodes, "n1");
    expect(after?.status?.phase).toBe("Y");
    expect(after?.spec?.podCIDR).toBe("a");
    // As the API server's node and service status strategies: only the spec is reset, metadata goes through.
    expect(after?.metadata?.labels).toEqual({ a: "1", b: "2" });
  });

  test.each([
    ["adds to a list", ["foo"], { "$setElementOrder/finalizers": ["foo", "bar"], finalizers: ["bar"] }, ["foo", "bar"]],
    [
      "removes from a list",
      ["foo", "bar"],
      { "$deleteFromPrimitiveList/finalizers": ["bar"], "$setElementOrder/finalizers": ["foo"] },
      ["foo"],
    ],
    ["reorders", ["b", "a"], { "$setElementOrder/finalizers": ["a", "b"] }, ["a", "b"]],
    ["removes the last one", ["bar"], { "$deleteFromPrimitiveList/finalizers": ["bar"] }, []],
    // finalizers carry patchStrategy merge, as in the real API: a list without directives is merged in.
    ["merges without directives", ["foo"], { finalizers: ["bar"] }, ["foo", "bar"]],
  ])("strategic merge of a scalar list with directives %s", async (_, before, metadata, expected) => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.services, {
      metadata: { name: "s", namespace: "default", finalizers: before },
      spec: { ports },
    });
    const opts = { namespace: "default", subresource: "status" } as const;
    await client.patch(Resources.services, "s", "strategic", { metadata }, opts);
    // No finalizers left reads the same whether the list is empty or gone.
    expect(client.peek<Service>(Resources.services, "s", "default")?.metadata?.finalizers ?? []).toEqual(expected);
  });

  test("patch flavours: merge deletes with null, strategic honours replace, json test failure is 422", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, { metadata: { name: "n1", labels: { a: "1", b: "2" } }, spec: { podCIDRs: ["x"] } });
    await client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { a: null } } });
    expect(client.peek<Node>(Resources.nodes, "n1")?.metadata?.labels).toEqual({ b: "2" });
    await client.patch(Resources.nodes, "n1", "strategic", { metadata: { labels: { $patch: "replace", c: "3" } } });
    expect(client.peek<Node>(Resources.nodes, "n1")?.metadata?.labels).toEqual({ c: "3" });
    const ops = [{ op: "add", path: "/spec/podCIDRs/-", value: "y" }];
    await client.patch(Resources.nodes, "n1", "json", ops);
    expect(client.peek<Node>(Resources.nodes, "n1")?.spec?.podCIDRs).toEqual(["x", "y"]);
    const failed = await rejection(
      client.patch(Resources.nodes, "n1", "json", [{ op: "test", path: "/spec/podCIDRs/0", value: "z" }]),
    );
    expect((failed as KubeApiError).status).toBe(422);
  });

  test("a patch carrying a stale resourceVersion conflicts", async () => {
    const client = new EmulatorKubeClient();
    const [n1] = client.seed(Resources.nodes, node("n1"));
    await client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { a: "1" } } });
    const patch = { metadata: { resourceVersion: n1?.metadata?.resourceVersion, labels: { a: "2" } } };
    expect(isConflict(await rejection(client.patch(Resources.nodes, "n1", "strategic", patch)))).toBeTrue();
  });

  test("a no-op write keeps the resourceVersion", async () => {
    const client = new EmulatorKubeClient();
    const [n1] = client.seed(Resources.nodes, node("n1", { a: "1" }));
    const after = await client.patch<Node>(Resources.nodes, "n1", "merge", { metadata: { labels: { a: "1" } } });
    expect(after.metadata?.resourceVersion).toBe(n1?.metadata?.resourceVersion as string);
  });

  test("finalizers hold a deleted object until the last one is removed", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.services, {
      metadata: { name: "s", namespace: "default", finalizers: ["f"] },
      spec: { ports },
    });
    await client.delete(Resources.services, "s", { namespace: "default" });
    const deleting = client.peek<Service>(Resources.services, "s", "default");
    expect(deleting?.metadata?.deletionTimestamp).toBeString();
    await client.patch(Resources.services, "s", "merge", { metadata: { finalizers: null } }, { namespace: "default" });
    expect(client.peek(Resources.services, "s", "default")).toBeUndefined();
  });

  test("delete honours a uid precondition", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("n1"));
    expect(isConflict(await rejection(client.delete(Resources.nodes, "n1", { uid: "other" })))).toBeTrue();
    await client.delete(Resources.nodes, "n1");
    expect(client.peek(Resources.nodes, "n1")).toBeUndefined();
  });
});

describe("EmulatorKubeClient requests and reactors", () => {
  test("records every request with method, resource, name, subresource and patch type", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("n1"));
    await client.get(Resources.nodes, "n1");
    await client.patch(Resources.nodes, "n1", "strategic", { status: {} }, { subresource: "status" });
    expect(client.writes()).toHaveLength(1);
    expect(client.writes()[0]).toMatchObject({
      method: "patch",
      resource: "nodes",
      name: "n1",
      subresource: "status",
      patchType: "strategic",
    });
    expect(client.requestsMatching({ method: "get" })).toHaveLength(1);
    client.clearRequests();
    expect(client.requests).toHaveLength(0);
  });

  test("reactors answer or fail requests, newest first, a limited number of times", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("n1"));
    const boom = new KubeApiError("boom", { status: 500, reason: "InternalError" });
    client.fail({ method: "get", resource: "nodes" }, boom, { times: 1 });
    expect(await rejection(client.get(Resources.nodes, "n1"))).toBe(boom);
    expect((await client.get<Node>(Resources.nodes, "n1")).metadata?.name).toBe("n1");
    const remove = client.react({ method: "create", resource: "tokenreviews" }, (r) => ({
      ...(r.body as object),
      status: { authenticated: true, user: { username: "u" } },
    }));
    const review = await client.create(Resources.tokenReviews, { spec: { token: "t" } } as never);
    expect(review).toMatchObject({ status: { authenticated: true } });
    remove();
    const denied = await client.create(Resources.tokenReviews, { spec: { token: "t" } } as never);
    expect(denied).toMatchObject({ status: { authenticated: false } });
    expect(client.requestsMatching({ method: "create", resource: "tokenreviews" })).toHaveLength(2);
  });
});

describe("EmulatorKubeClient watch", () => {
  const collect = async (iterable: AsyncIterable<{ type: string; object: unknown }>, count: number) => {
    const out: string[] = [];
    for await (const e of iterable) {
      out.push(`${e.type}:${(e.object as Node).metadata?.name ?? (e.object as { code?: number }).code}`);
      if (out.length === count) break;
    }
    return out;
  };

  test("replays history after a resourceVersion, then streams live events", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("n1"));
    const from = client.resourceVersion;
    client.seed(Resources.nodes, node("n2"));
    const events = collect(client.watch(Resources.nodes, { resourceVersion: from }), 3);
    await client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: { a: "1" } } });
    await client.delete(Resources.nodes, "n2");
    expect(await events).toEqual(["ADDED:n2", "MODIFIED:n1", "DELETED:n2"]);
    expect(client.watchCount()).toBe(0);
  });

  test("a watch from resourceVersion 0 starts with the current objects and honours selectors", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("a", { x: "1" }), node("b"));
    const events = collect(client.watch(Resources.nodes, { resourceVersion: "0", labelSelector: "x" }), 2);
    client.seed(Resources.nodes, node("c"), node("d", { x: "1" }));
    expect(await events).toEqual(["ADDED:a", "ADDED:d"]);
  });

  test("an expired resourceVersion ends the watch with a 410 ERROR event", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.nodes, node("n1"));
    client.seed(Resources.nodes, node("n2"));
    client.compactHistory();
    expect(await collect(client.watch(Resources.nodes, { resourceVersion: "1" }), 5)).toEqual(["ERROR:410"]);
  });

  test("abort and server close end the stream", async () => {
    const client = new EmulatorKubeClient();
    const controller = new AbortController();
    const aborted = collect(client.watch(Resources.nodes, { resourceVersion: "0", signal: controller.signal }), 5);
    const closed = collect(client.watch(Resources.nodes, { resourceVersion: "0" }), 5);
    client.seed(Resources.nodes, node("n1"));
    await Promise.resolve();
    controller.abort();
    client.closeWatches();
    expect(await aborted).toEqual(["ADDED:n1"]);
    expect(await closed).toEqual(["ADDED:n1"]);
  });
});
