import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { addAppCredential } from "./state.ts";
import { type Harness, PASSWORD, passwordAuth, startHarness } from "./testing.ts";

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

const issue = (body: unknown) => h.call("POST", "/identity/v3/auth/tokens", { body, token: null });
const appCredential = (credential: Record<string, unknown>, scope?: unknown) => ({
  auth: {
    identity: { methods: ["application_credential"], application_credential: credential },
    ...(scope === undefined ? {} : { scope }),
  },
});

describe("the OpenStack emulator's Keystone", () => {
  test("an application credential by ID gets a token for its own project", async () => {
    const w = h.emulator.world;
    const c = addAppCredential(w, {
      name: "ccm",
      userID: h.emulator.user.id,
      projectID: h.emulator.project.id,
      secret: "s-1",
    });
    const res = await issue(appCredential({ id: c.id, secret: "s-1" }));
    expect(res.status).toBe(201);
    expect(res.body.token.project.id).toBe(h.emulator.project.id);
    expect(res.body.token.application_credential).toEqual({ id: c.id, name: "ccm", restricted: true });
  });

  test("an application credential by name and user; a wrong secret or a scope is refused", async () => {
    const w = h.emulator.world;
    addAppCredential(w, { name: "ccm", userID: h.emulator.user.id, projectID: h.emulator.project.id, secret: "s-1" });
    const user = { name: "admin", domain: { id: "default" } };
    expect((await issue(appCredential({ name: "ccm", user, secret: "s-1" }))).status).toBe(201);
    expect((await issue(appCredential({ name: "ccm", user, secret: "nope" }))).status).toBe(401);
    const scoped = await issue(appCredential({ name: "ccm", user, secret: "s-1" }, { project: { id: "x" } }));
    expect(scoped.status).toBe(401);
    expect(scoped.body.error.message).toContain("cannot request a scope");
  });

  test("a trust scopes the trustee's token to the trustor's project", async () => {
    const w = h.emulator.world;
    w.trusts.set("t-1", { id: "t-1", trusteeUserID: h.emulator.user.id, projectID: h.emulator.project.id });
    const res = await issue({
      auth: {
        identity: { methods: ["password"], password: { user: { id: h.emulator.user.id, password: PASSWORD } } },
        scope: { "OS-TRUST:trust": { id: "t-1" } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.token["OS-TRUST:trust"].id).toBe("t-1");
    expect(res.body.token.project.id).toBe(h.emulator.project.id);
  });

  test("a token is exchanged for a new one; an unscoped token has no catalog", async () => {
    const first = await issue(passwordAuth());
    const token = first.headers.get("x-subject-token");
    const res = await issue({
      auth: {
        identity: { methods: ["token"], token: { id: token } },
        scope: { project: { id: h.emulator.project.id } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-subject-token")).not.toBe(token);
    const unscoped = await issue({ auth: { identity: passwordAuth().auth.identity } });
    expect(unscoped.body.token.catalog).toBeUndefined();
  });

  test("tokens expire after their lifetime, or at once through the control API", async () => {
    const token = await h.token();
    expect((await h.call("GET", "/compute/v2.1/flavors", { token })).status).toBe(200);
    await h.call("POST", "/_emulator/tokens/expire", { token: null });
    expect((await h.call("GET", "/compute/v2.1/flavors", { token })).status).toBe(401);
  });
});

describe("the OpenStack emulator's control API and faults", () => {
  test("makes, stops and deletes servers behind the API's back", async () => {
    const made = await h.call("POST", "/_emulator/servers", { body: { name: "n-1", floatingIP: true }, token: null });
    expect(made.status).toBe(201);
    const id = made.body.server.id;
    await h.call("PUT", `/_emulator/servers/${id}`, { body: { status: "SHUTOFF" }, token: null });
    expect((await h.call("GET", `/compute/v2.1/servers/${id}`)).body.server.status).toBe("SHUTOFF");
    await h.call("DELETE", `/_emulator/servers/${id}`, { token: null });
    expect((await h.call("GET", `/compute/v2.1/servers/${id}`)).status).toBe(404);
    expect((await h.call("GET", `/networking/v2.0/ports?device_id=${id}`)).body.ports).toEqual([]);
  });

  test("answers the next calls under a path with the injected status, in that service's envelope", async () => {
    await h.call("PUT", "/_emulator/faults", {
      body: {
        failNext: [
          { pathPrefix: "/compute/", status: 503, count: 1 },
          { pathPrefix: "/networking/", status: 500, count: 1 },
        ],
      },
      token: null,
    });
    const nova = await h.call("GET", "/compute/v2.1/servers/detail");
    expect(nova.status).toBe(503);
    expect(Object.keys(nova.body)).toEqual(["serviceUnavailable"]);
    const neutron = await h.call("GET", "/networking/v2.0/ports");
    expect(neutron.body.NeutronError.type).toBe("HTTPInternalServerError");
    expect((await h.call("GET", "/compute/v2.1/servers/detail")).status).toBe(200);
  });

  test("counts calls by route", async () => {
    await h.call("GET", "/compute/v2.1/servers/detail");
    expect(h.emulator.calls.count("GET /compute/v2.1/servers/detail")).toBe(1);
    expect(h.emulator.calls.count("POST /identity/v3/auth/tokens")).toBe(1);
  });
});
