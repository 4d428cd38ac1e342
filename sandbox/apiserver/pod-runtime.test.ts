import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type ApiServer, startApiServer } from "./server.ts";
import { call, client } from "./testing.ts";

setDefaultTimeout(60_000);

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({
    bookmarkIntervalMs: 0,
    tokens: { "t-admin": { user: "admin" }, "t-viewer": { user: "viewer" } },
    authorizer: (a) => ({ allowed: a.user === "admin" || (a.verb === "get" && a.subresource === "") }),
  });
  const r = await client(server.url, "t-admin").post("/api/v1/namespaces/default/pods", {
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  });
  expect(r.status).toBe(201);
});
afterAll(() => server.stop());

describe("a pod's log, exec, attach and port-forward", () => {
  test.each([
    ["GET", "log", "read logs from"],
    ["POST", "exec", "run a command in"],
    ["POST", "attach", "attach to"],
    ["POST", "portforward", "forward ports to"],
  ])("%s %s answers 400: the sandbox runs no containers", async (method, sub, what) => {
    const r = await call(server.url, method, `/api/v1/namespaces/default/pods/p/${sub}`, { token: "t-admin" });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ kind: "Status", reason: "BadRequest" });
    expect(r.body.message).toBe(
      `pod "p" has no running container: the sandbox stores pods but runs none, so there is nothing to ${what} (docs/sandbox.md, "kubectl against the sandbox")`,
    );
  });

  test("a pod that does not exist is 404, as from a real server", async () => {
    const r = await call(server.url, "GET", "/api/v1/namespaces/default/pods/nope/log", { token: "t-admin" });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('pods "nope" not found');
  });

  test("a caller who may not read logs is 403 before anything else", async () => {
    const r = await call(server.url, "GET", "/api/v1/namespaces/default/pods/p/log", { token: "t-viewer" });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('cannot get resource "pods/log"');
  });
});
