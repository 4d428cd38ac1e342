import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type ApiServer, startApiServer } from "./server.ts";
import { client, finalizers, labels, node, ready, service } from "./testing.ts";

// bunfig's [test] timeout is not applied by bun 1.4.5; a busy CI machine needs more than the 5 s default.
setDefaultTimeout(60_000);

let server: ApiServer;
let api: ReturnType<typeof client>;
const NOW = Date.parse("2026-05-01T10:00:00Z");

beforeAll(async () => {
  server = await startApiServer({ now: () => NOW, bookmarkIntervalMs: 0 });
  api = client(server.url);
});
afterAll(() => server.stop());

describe("create and read", () => {
  test("creates with server-set metadata and answers 201", async () => {
    const rvBefore = Number(server.store.resourceVersion);
    const r = await api.post("/api/v1/nodes", node("create-1"));
    expect(r.status).toBe(201);
    const meta = r.body.metadata;
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toBe("2026-05-01T10:00:00Z");
    expect(meta.generation).toBe(1);
    expect(Number(meta.resourceVersion)).toBe(rvBefore + 1);
    expect((await api.get("/api/v1/nodes/create-1")).body).toEqual(r.body);
  });

  test("resourceVersions increase across resources", async () => {
    const a = await api.post("/api/v1/namespaces/default/configmaps", { metadata: { name: "rv-a" } });
    const b = await api.post("/api/v1/nodes", node("rv-b"));
    expect(Number(b.body.metadata.resourceVersion)).toBe(Number(a.body.metadata.resourceVersion) + 1);
  });

  test("a second create of the same name is 409 AlreadyExists", async () => {
    await api.post("/api/v1/nodes", node("dup"));
    const r = await api.post("/api/v1/nodes", node("dup"));
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'nodes "dup" already exists',
      reason: "AlreadyExists",
      details: { name: "dup", kind: "nodes" },
      code: 409,
    });
  });

  test("generateName gets a five-character suffix", async () => {
    const r = await api.post("/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test("a namespaced create in a missing namespace is 404 for the namespace", async () => {
    const r = await api.post("/api/v1/namespaces/nope/services", service("s"));
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({
      reason: "NotFound",
      message: 'namespaces "nope" not found',
      details: { name: "nope", kind: "namespaces" },
    });
  });

  test("a missing object is 404 with the group in the message", async () => {
    const r = await api.get("/apis/coordination.k8s.io/v1/namespaces/default/leases/none");
    expect(r.body).toMatchObject({
      code: 404,
      message: 'leases.coordination.k8s.io "none" not found',
      details: { name: "none", group: "coordination.k8s.io", kind: "leases" },
    });
  });

  test("dryRun=All validates and answers without storing", async () => {
    const r = await api.post("/api/v1/nodes?dryRun=All", node("dry"));
    expect(r.status).toBe(201);
    expect((await api.get("/api/v1/nodes/dry")).status).toBe(404);
  });
});

describe("optimistic concurrency", () => {
  test("PUT with a stale resourceVersion is 409 Conflict with the real message", async () => {
    const created = (await api.post("/api/v1/nodes", node("occ"))).body;
    const fresh = await api.put("/api/v1/nodes/occ", {
      ...created,
      metadata: { ...created.metadata, labels: { a: "1" } },
    });
    expect(fresh.status).toBe(200);
    const stale = await api.put("/api/v1/nodes/occ", {
      ...created,
      metadata: { ...created.metadata, labels: { a: "2" } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Operation cannot be fulfilled on nodes "occ": the object has been modified; please apply your changes to the latest version and try again',
      reason: "Conflict",
      details: { name: "occ", kind: "nodes" },
      code: 409,
    });
  });

  test("PUT without a resourceVersion updates unconditionally", async () => {
    await api.post("/api/v1/nodes", node("uncond"));
    const r = await api.put("/api/v1/nodes/uncond", node("uncond", labels({ b: "1" })));
    expect(r.status).toBe(200);
    expect(r.body.metadata.labels).toEqual({ b: "1" });
  });

  test("an update that changes nothing keeps the resourceVersion", async () => {
    const created = (await api.post("/api/v1/nodes", node("noop"))).body;
    const r = await api.put("/api/v1/nodes/noop", created);
    expect(r.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  test("a name in the body different from the URL's is 400", async () => {
    const r = await api.put("/api/v1/nodes/uncond", node("other"));
    expect(r.status).toBe(400);
  });
});

describe("validation", () => {
  test("an invalid name is 422 Invalid with a cause", async () => {
    const r = await api.post("/api/v1/namespaces/default/services", service("Bad_Name"));
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("Invalid");
    expect(r.body.message).toStartWith(
      'Service "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a DNS-1035 label',
    );
    expect(r.body.details.kind).toBe("Service");
    expect(r.body.details.causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
  });

  test("a missing name is 422 Required", async () => {
    const r = await api.post("/api/v1/nodes", { metadata: {} });
    expect(r.body.details.causes).toEqual([
      {
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
        field: "metadata.name",
      },
    ]);
  });

  test("service ports: range, protocol, names; several findings print as a list", async () => {
    const svc = service("ports", (s) => {
      s.spec.ports = [{ port: 0 }, { name: "b", port: 80, protocol: "HTTP" }];
    });
    const r = await api.post("/api/v1/namespaces/default/services", svc);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Service "ports" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"]',
    );
    // targetPort defaults to port, so the bad port is reported twice, as by the real server.
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual([
      "spec.ports[0].name",
      "spec.ports[0].port",
      "spec.ports[0].targetPort",
      "spec.ports[1].protocol",
    ]);
  });

  test("a node taint with a bad effect is 422 NotSupported", async () => {
    const n = node("tainted", (o) => {
      o.spec.taints = [{ key: "k", effect: "Sometimes" }];
    });
    const r = await api.post("/api/v1/nodes", n);
    expect(r.body.details.causes).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"',
        field: "spec.taints[0].effect",
      },
    ]);
  });

  test("lease MicroTimes need six fractional digits (400 otherwise) and come back in UTC", async () => {
    const lease = (renewTime: string) => ({
      metadata: { name: "l1" },
      spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime },
    });
    const bad = await api.post(
      "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      lease("2026-05-01T10:00:00.123Z"),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe("BadRequest");
    const ok = await api.post(
      "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      lease("2026-05-01T12:00:00.123456+02:00"),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.spec.renewTime).toBe("2026-05-01T10:00:00.123456Z");
  });
});

describe("status subresource", () => {
  test("PUT and PATCH on the main resource leave status alone", async () => {
    const created = (await api.post("/api/v1/nodes", node("st-main", ready("True")))).body;
    expect(created.status.conditions[0].status).toBe("True"); // nodes keep status on create
    const put = await api.put("/api/v1/nodes/st-main", { ...created, spec: { unschedulable: true }, status: {} });
    expect(put.body.spec.unschedulable).toBe(true);
    expect(put.body.status).toEqual(created.status);
    const patched = await api.patch(
      "/api/v1/nodes/st-main",
      { status: { phase: "x" }, metadata: { labels: { p: "1" } } },
      "merge",
    );
    expect(patched.body.status).toEqual(created.status);
    expect(patched.body.metadata.labels).toEqual({ p: "1" });
  });

  // kube-apiserver's node and service status strategies reset only the spec: metadata (labels, finalizers) goes
  // through, which upstream's service controller relies on for its finalizer.
  test("PUT and PATCH on /status never change the spec, and keep metadata changes", async () => {
    const created = (await api.post("/api/v1/nodes", node("st-sub", ready("True")))).body;
    const body = {
      ...created,
      metadata: { ...created.metadata, labels: { ignored: "1" } },
      spec: { unschedulable: true },
    };
    body.status = { ...created.status, conditions: [{ ...created.status.conditions[0], status: "False" }] };
    const put = await api.put("/api/v1/nodes/st-sub/status", body);
    expect(put.status).toBe(200);
    expect(put.body.status.conditions[0].status).toBe("False");
    expect(put.body.spec).toEqual({});
    expect(put.body.metadata.labels).toEqual({ ignored: "1" });
    const patched = await api.patch(
      "/api/v1/nodes/st-sub/status",
      { spec: { unschedulable: true }, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } },
      "strategic",
    );
    expect(patched.body.spec).toEqual({});
    expect(patched.body.status.addresses).toEqual([{ type: "InternalIP", address: "10.0.0.1" }]);
  });

  test("services start with an empty status whatever the client sends", async () => {
    const r = await api.post(
      "/api/v1/namespaces/default/services",
      service("st-svc", (s) => {
        s.status = { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } };
      }),
    );
    expect(r.body.status).toEqual({ loadBalancer: {} });
  });
});

describe("deletion", () => {
  test("finalizers delay deletion until the last one is removed", async () => {
    await api.post("/api/v1/nodes", node("fin", finalizers("example.com/a", "example.com/b")));
    const first = await api.del("/api/v1/nodes/fin");
    expect(first.status).toBe(200);
    expect(first.body.metadata.deletionTimestamp).toBe("2026-05-01T10:00:00Z");
    expect(first.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await api.get("/api/v1/nodes/fin")).status).toBe(200);
    const again = await api.del("/api/v1/nodes/fin");
    expect(again.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const adding = await api.patch("/api/v1/nodes/fin", { metadata: { finalizers: ["example.com/c"] } }, "strategic");
    expect(adding.status).toBe(422);
    await api.patch(
      "/api/v1/nodes/fin",
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a"] } },
      "strategic",
    );
    expect((await api.get("/api/v1/nodes/fin")).status).toBe(200);
    await api.patch("/api/v1/nodes/fin", [{ op: "remove", path: "/metadata/finalizers" }], "json");
    expect((await api.get("/api/v1/nodes/fin")).status).toBe(404);
  });

  test("delete preconditions: a wrong uid or resourceVersion is 409", async () => {
    const created = (await api.post("/api/v1/nodes", node("pre"))).body;
    const wrongUid = await api.del("/api/v1/nodes/pre", { preconditions: { uid: "nope" } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toBe(
      `Operation cannot be fulfilled on nodes "pre": Precondition failed: UID in precondition: nope, UID in object meta: ${created.metadata.uid}`,
    );
    const wrongRv = await api.del("/api/v1/nodes/pre", { preconditions: { resourceVersion: "1" } });
    expect(wrongRv.status).toBe(409);
    const ok = await api.del("/api/v1/nodes/pre", {
      preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion },
    });
    expect(ok.body).toMatchObject({
      kind: "Status",
      status: "Success",
      details: { name: "pre", kind: "nodes", uid: created.metadata.uid },
    });
  });

  test("deleting a namespace deletes what is in it, then the namespace", async () => {
    await api.post("/api/v1/namespaces", { metadata: { name: "doomed" } });
    await api.post("/api/v1/namespaces/doomed/configmaps", { metadata: { name: "c" } });
    await api.post("/api/v1/namespaces/doomed/configmaps", {
      metadata: { name: "held", finalizers: ["example.com/x"] },
    });
    const r = await api.del("/api/v1/namespaces/doomed");
    expect(r.body.status.phase).toBe("Terminating");
    expect((await api.get("/api/v1/namespaces/doomed/configmaps/c")).status).toBe(404);
    expect((await api.post("/api/v1/namespaces/doomed/configmaps", { metadata: { name: "late" } })).status).toBe(403);
    await api.patch("/api/v1/namespaces/doomed/configmaps/held", { metadata: { finalizers: null } }, "merge");
    expect((await api.get("/api/v1/namespaces/doomed")).status).toBe(404);
  });

  test("the default namespaces exist and cannot be deleted", async () => {
    const names = (await api.get("/api/v1/namespaces")).body.items.map(
      (n: { metadata: { name: string } }) => n.metadata.name,
    );
    expect(names).toEqual(expect.arrayContaining(["default", "kube-node-lease", "kube-public", "kube-system"]));
    expect((await api.del("/api/v1/namespaces/kube-system")).status).toBe(403);
  });
});

describe("service allocation", () => {
  test("allocates a cluster IP and node ports, and keeps them when an update omits them", async () => {
    const created = (await api.post("/api/v1/namespaces/default/services", service("alloc"))).body;
    expect(created.spec.clusterIP).toMatch(/^10\.96\./);
    expect(created.spec.ports[0]).toMatchObject({ protocol: "TCP", targetPort: 8080 });
    const nodePort = created.spec.ports[0].nodePort;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    const update = service("alloc");
    update.spec.ports[0].targetPort = 9090;
    const r = await api.put("/api/v1/namespaces/default/services/alloc", update);
    expect(r.body.spec.clusterIP).toBe(created.spec.clusterIP);
    expect(r.body.spec.ports[0].nodePort).toBe(nodePort);
    const taken = service("alloc-2", (s) => {
      s.spec.ports[0].nodePort = nodePort;
    });
    expect((await api.post("/api/v1/namespaces/default/services", taken)).status).toBe(422);
  });
});

describe("request bodies without a Content-Type", () => {
  test("a create is read as JSON, as the real server reads it (kubectl 1.20 sends none)", async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      body: new TextEncoder().encode(JSON.stringify({ metadata: { name: "no-content-type" }, data: { a: "b" } })),
    });
    expect(r.status).toBe(201);
    expect(await r.json()).toMatchObject({ metadata: { name: "no-content-type" }, data: { a: "b" } });
  });
});
