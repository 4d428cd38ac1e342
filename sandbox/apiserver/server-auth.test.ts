import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Reader } from "./protobuf/wire.ts";
import { type ApiServer, startApiServer } from "./server.ts";
import { call, client, type Json, node } from "./testing.ts";

setDefaultTimeout(60_000);

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({
    bookmarkIntervalMs: 0,
    tokens: { "t-admin": { user: "admin", groups: ["system:masters"] }, "t-viewer": { user: "viewer" } },
    // Known users may do anything, except that `viewer` may only read.
    authorizer: (a) =>
      a.user === "viewer" && !["get", "list", "watch"].includes(a.verb)
        ? { allowed: false, reason: "viewer is read-only" }
        : { allowed: ["admin", "viewer"].includes(a.user) },
  });
});
afterAll(() => server.stop());

describe("authentication", () => {
  test.each([
    ["no token", undefined],
    ["an unknown token", "t-nope"],
  ])("%s is 401 Unauthorized", async (_name, token) => {
    const r = await call(server.url, "GET", "/api/v1/nodes", token ? { token } : {});
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
  });

  test("health and version stay open without a token, but not with a bad one", async () => {
    for (const path of ["/healthz", "/readyz", "/livez"]) {
      const r = await call(server.url, "GET", path);
      expect([r.status, r.body]).toEqual([200, "ok"]);
    }
    expect((await call(server.url, "GET", "/version")).body.gitVersion).toBe("v1.32.0");
    expect((await call(server.url, "GET", "/healthz", { token: "t-nope" })).status).toBe(401);
  });

  test("a known token is accepted", async () => {
    expect((await call(server.url, "GET", "/api/v1/nodes", { token: "t-admin" })).status).toBe(200);
  });
});

describe("authorization", () => {
  test("a denied request is 403 with the real wording", async () => {
    const r = await client(server.url, "t-viewer").post("/api/v1/nodes", node("n1"));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      reason: "Forbidden",
      message:
        'nodes is forbidden: User "viewer" cannot create resource "nodes" in API group "" at the cluster scope: viewer is read-only',
    });
  });

  test("SelfSubjectReview (kubectl auth whoami) answers who the caller is", async () => {
    const r = await client(server.url, "t-admin").post("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      kind: "SelfSubjectReview",
      status: { userInfo: { username: "admin", groups: ["system:masters", "system:authenticated"] } },
    });
  });

  test("TokenReview answers for the tokens the server knows", async () => {
    const admin = client(server.url, "t-admin");
    const known = await admin.post("/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "t-viewer" } });
    expect(known.status).toBe(201);
    expect(known.body.status).toMatchObject({
      authenticated: true,
      user: { username: "viewer", groups: ["system:authenticated"] },
    });
    const unknown = await admin.post("/apis/authentication.k8s.io/v1/tokenreviews", { spec: { token: "t-nope" } });
    expect(unknown.body.status.authenticated).toBe(false);
  });

  test("SubjectAccessReview asks the authorizer", async () => {
    const admin = client(server.url, "t-admin");
    const sar = (user: string, verb: string) =>
      admin.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        spec: { user, resourceAttributes: { verb, resource: "nodes", group: "" } },
      });
    expect((await sar("viewer", "list")).body.status.allowed).toBe(true);
    expect((await sar("viewer", "patch")).body.status).toEqual({ allowed: false, reason: "viewer is read-only" });
    expect((await sar("stranger", "get")).body.status.allowed).toBe(false);
    const invalid = await admin.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { user: "x" } });
    expect(invalid.status).toBe(422);
  });
});

describe("discovery", () => {
  const get = (path: string) => call(server.url, "GET", path, { token: "t-admin" });

  test("core resources with their short names and the status subresources", async () => {
    const r = (await get("/api/v1")).body;
    const byName = Object.fromEntries(r.resources.map((x: Json) => [x.name, x]));
    expect(byName.nodes).toMatchObject({ kind: "Node", namespaced: false, shortNames: ["no"] });
    expect(byName.services.shortNames).toEqual(["svc"]);
    expect(byName.configmaps.shortNames).toEqual(["cm"]);
    expect(byName.events.shortNames).toEqual(["ev"]);
    expect(byName.namespaces.shortNames).toEqual(["ns"]);
    expect(byName["nodes/status"].verbs).toEqual(["get", "patch", "update"]);
    expect(byName.nodes.verbs).toEqual([
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
  });

  test("groups and their resource lists", async () => {
    expect((await get("/api")).body.versions).toEqual(["v1"]);
    const groups = (await get("/apis")).body.groups.map((g: Json) => g.name);
    expect(groups).toEqual([
      "apps",
      "coordination.k8s.io",
      "events.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
    ]);
    expect((await get("/apis/coordination.k8s.io/v1")).body.resources.map((x: Json) => x.name)).toEqual(["leases"]);
    const apps = (await get("/apis/apps/v1")).body.resources;
    expect(apps.map((x: Json) => [x.name, x.kind])).toEqual([
      ["deployments", "Deployment"],
      ["deployments/status", "Deployment"],
      ["deployments/scale", "Scale"],
    ]);
    expect(apps[2]).toMatchObject({ group: "autoscaling", version: "v1" });
    expect((await get("/apis/batch/v1")).status).toBe(404);
  });

  test("/openapi/v2 is an empty Swagger document, as JSON or as the protobuf client-go asks for", async () => {
    expect((await get("/openapi/v2")).body).toEqual({
      swagger: "2.0",
      info: { title: "Kubernetes (ccm-ts sandbox)", version: "v1.32.0" },
      paths: {},
    });
    const r = await fetch(`${server.url}/openapi/v2`, {
      headers: {
        authorization: "Bearer t-admin",
        accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
      },
    });
    expect(r.headers.get("content-type")).toBe("application/octet-stream");
    const fields: [number, string][] = [];
    const reader = new Reader(new Uint8Array(await r.arrayBuffer()));
    while (!reader.done) {
      const { field } = reader.tag();
      fields.push([field, field === 2 ? "(info)" : reader.string()]);
      if (field === 2) reader.bytes();
    }
    expect(fields).toEqual([
      [1, "2.0"],
      [2, "(info)"],
      [8, ""],
    ]);
  });

  test("a write to an API the emulator does not serve is 404, as on a real server without it", async () => {
    const r = await call(server.url, "POST", "/apis/batch/v1/namespaces/default/jobs", {
      token: "t-admin",
      body: { metadata: { name: "j" } },
    });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe("the server could not find the requested resource");
  });

  test("an unknown path is 404 with the real message", async () => {
    const r = await get("/api/v1/widgets");
    expect(r.body).toMatchObject({ code: 404, message: "the server could not find the requested resource" });
  });
});
