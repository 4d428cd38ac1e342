import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { call, emulatorPerFile, type Json, node, ready, service } from "./testing.ts";

setDefaultTimeout(60_000);

const emulator = emulatorPerFile();

const taint = (key: string, effect: string) => ({ key, effect });

describe("patch types over HTTP", () => {
  test("merge patch: maps merge, null deletes, lists replace", async () => {
    await emulator.api.post(
      "/api/v1/nodes",
      node("m1", (n) => {
        n.metadata.labels = { a: "1", b: "2" };
        n.spec.taints = [taint("x", "NoSchedule")];
      }),
    );
    const r = await emulator.api.patch(
      "/api/v1/nodes/m1",
      { metadata: { labels: { a: null, c: "3" } }, spec: { taints: [] } },
      "merge",
    );
    expect(r.status).toBe(200);
    expect(r.body.metadata.labels).toEqual({ b: "2", c: "3" });
    expect(r.body.spec.taints).toEqual([]);
  });

  test("JSON patch: ops apply in order; a failed test is 422 and changes nothing", async () => {
    const before = (await emulator.api.post("/api/v1/nodes", node("j1"))).body;
    const ok = await emulator.api.patch(
      "/api/v1/nodes/j1",
      [
        { op: "add", path: "/metadata/labels", value: { k: "v" } },
        { op: "test", path: "/metadata/labels/k", value: "v" },
        { op: "add", path: "/spec/taints", value: [taint("t", "NoExecute")] },
      ],
      "json",
    );
    expect(ok.body.spec.taints).toEqual([taint("t", "NoExecute")]);
    const failed = await emulator.api.patch(
      "/api/v1/nodes/j1",
      [
        { op: "replace", path: "/metadata/labels/k", value: "w" },
        { op: "test", path: "/metadata/labels/k", value: "nope" },
      ],
      "json",
    );
    expect(failed.status).toBe(422);
    const now = (await emulator.api.get("/api/v1/nodes/j1")).body;
    expect(now.metadata.labels).toEqual({ k: "v" });
    expect(Number(now.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    const malformed = await emulator.api.patch("/api/v1/nodes/j1", { op: "add" }, "json");
    expect(malformed.status).toBe(400);
  });

  test("strategic patch: taints are replaced whole, the way kubectl taint sends them", async () => {
    await emulator.api.post(
      "/api/v1/nodes",
      node("s1", (n) => {
        n.spec.taints = [taint("a", "NoSchedule"), taint("a", "NoExecute"), taint("b", "NoSchedule")];
      }),
    );
    const r = await emulator.api.patch(
      "/api/v1/nodes/s1",
      { spec: { taints: [taint("a", "NoExecute"), taint("c", "NoSchedule")] } },
      "strategic",
    );
    expect(r.body.spec.taints).toEqual([taint("a", "NoExecute"), taint("c", "NoSchedule")]);
  });

  test("strategic patch on /status: conditions merge by type, $setElementOrder orders them", async () => {
    await emulator.api.post(
      "/api/v1/nodes",
      node("s2", ready("True"), (n) => {
        n.status.conditions.push(
          { type: "MemoryPressure", status: "False" },
          { type: "DiskPressure", status: "False" },
        );
      }),
    );
    const r = await emulator.api.patch(
      "/api/v1/nodes/s2/status",
      {
        status: {
          "$setElementOrder/conditions": [{ type: "DiskPressure" }, { type: "Ready" }, { type: "MemoryPressure" }],
          conditions: [{ type: "Ready", status: "False", reason: "KubeletNotReady" }],
        },
      },
      "strategic",
    );
    expect(r.status).toBe(200);
    expect(r.body.status.conditions.map((c: Json) => `${c.type}=${c.status}`)).toEqual([
      "DiskPressure=False",
      "Ready=False",
      "MemoryPressure=False",
    ]);
    expect(r.body.status.conditions[1].lastHeartbeatTime).toBe("2026-01-01T00:00:00Z"); // merged, not replaced
  });

  test("strategic patch: service ports merge by port; load-balancer ingress is replaced", async () => {
    await emulator.api.post(
      "/api/v1/namespaces/default/services",
      service("sp", (s) => {
        s.spec.ports.push({ name: "https", port: 443, targetPort: 8443 });
      }),
    );
    const r = await emulator.api.patch(
      "/api/v1/namespaces/default/services/sp",
      { spec: { ports: [{ port: 443, targetPort: 9443 }] } },
      "strategic",
    );
    expect(r.body.spec.ports.map((p: Json) => `${p.name}:${p.port}->${p.targetPort}`)).toEqual([
      "http:80->8080",
      "https:443->9443",
    ]);
    const path = "/api/v1/namespaces/default/services/sp/status";
    await emulator.api.patch(
      path,
      { status: { loadBalancer: { ingress: [{ ip: "1.1.1.1" }, { ip: "2.2.2.2" }] } } },
      "strategic",
    );
    const st = await emulator.api.patch(
      path,
      { status: { loadBalancer: { ingress: [{ ip: "3.3.3.3" }] } } },
      "strategic",
    );
    expect(st.body.status.loadBalancer.ingress).toEqual([{ ip: "3.3.3.3" }]);
  });

  test("a patch carrying a stale resourceVersion is 409 Conflict", async () => {
    const n = (await emulator.api.post("/api/v1/nodes", node("s3"))).body;
    await emulator.api.patch("/api/v1/nodes/s3", { metadata: { labels: { a: "1" } } }, "merge");
    const r = await emulator.api.patch(
      "/api/v1/nodes/s3",
      { metadata: { resourceVersion: n.metadata.resourceVersion, labels: { a: "2" } } },
      "merge",
    );
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("Conflict");
  });

  test("an unknown patch media type is 415; server-side apply is not offered", async () => {
    await emulator.api.post("/api/v1/nodes", node("s4"));
    const r = await call(emulator.server.url, "PATCH", "/api/v1/nodes/s4", {
      body: "{}",
      contentType: "application/apply-patch+yaml",
    });
    expect(r.status).toBe(415);
    expect(r.body.reason).toBe("UnsupportedMediaType");
  });

  test("patching a missing object is 404", async () => {
    expect((await emulator.api.patch("/api/v1/nodes/none", {}, "merge")).status).toBe(404);
  });
});
