import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { addAppCredential } from "../../../sandbox/openstack/state.ts";
import { type Harness, PASSWORD, startHarness } from "../../../sandbox/openstack/testing.ts";
import type { AuthOptions } from "../auth-options.ts";
import { createKeystoneClient, OpenStackService } from "./client.ts";
import { endpointURL, KeystoneSession, tokenRequestBody } from "./keystone.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
const user = { name: "admin", domain: { name: "Default" } };

describe("the token request body", () => {
  test.each<[string, Pick<AuthOptions, "method" | "project">, unknown]>([
    [
      "password, user by name, project by name",
      { method: { kind: "password", user, password: "p" }, project: { name: "k8s", domain: { id: "default" } } },
      {
        auth: {
          identity: {
            methods: ["password"],
            password: { user: { name: "admin", domain: { name: "Default" }, password: "p" } },
          },
          scope: { project: { name: "k8s", domain: { id: "default" } } },
        },
      },
    ],
    [
      "password, user by ID, project by ID",
      { method: { kind: "password", user: { id: "u1" }, password: "p" }, project: { id: "p1" } },
      {
        auth: {
          identity: { methods: ["password"], password: { user: { id: "u1", password: "p" } } },
          scope: { project: { id: "p1" } },
        },
      },
    ],
    [
      "application credential by ID, no scope",
      { method: { kind: "application_credential", credential: { id: "a1" }, secret: "s" }, project: { id: "p1" } },
      {
        auth: { identity: { methods: ["application_credential"], application_credential: { id: "a1", secret: "s" } } },
      },
    ],
    [
      "application credential by name and user",
      {
        method: { kind: "application_credential", credential: { name: "ccm", user }, secret: "s" },
        project: undefined,
      },
      {
        auth: {
          identity: {
            methods: ["application_credential"],
            application_credential: { name: "ccm", user: { name: "admin", domain: { name: "Default" } }, secret: "s" },
          },
        },
      },
    ],
    [
      "trust: the trustee's password, scoped to the trust",
      { method: { kind: "trust", trustID: "t1", user: { id: "u2" }, password: "p" }, project: undefined },
      {
        auth: {
          identity: { methods: ["password"], password: { user: { id: "u2", password: "p" } } },
          scope: { "OS-TRUST:trust": { id: "t1" } },
        },
      },
    ],
    [
      "token",
      { method: { kind: "token", token: "tok" }, project: { id: "p1" } },
      { auth: { identity: { methods: ["token"], token: { id: "tok" } }, scope: { project: { id: "p1" } } } },
    ],
  ])("%s", (_, auth, body) => {
    expect(tokenRequestBody(auth)).toEqual(body);
  });
});

describe("endpoint selection in the catalog", () => {
  const catalog = [
    {
      type: "compute",
      name: "nova",
      endpoints: [
        { id: "1", interface: "public", region: "A", region_id: "A", url: "https://a/compute/v2.1/" },
        { id: "2", interface: "internal", region: "A", region_id: "A", url: "http://a-int/compute/v2.1" },
        { id: "3", interface: "public", region: "B", region_id: "B", url: "https://b/compute/v2.1" },
      ],
    },
  ];
  test.each([
    ["public", "A", "https://a/compute/v2.1"],
    ["internal", "A", "http://a-int/compute/v2.1"],
    ["public", "B", "https://b/compute/v2.1"],
  ] as const)("%s in %s", (iface, region, url) => {
    expect(endpointURL(catalog, { type: "compute", interface: iface, region })).toBe(url);
  });

  test("no match names what the catalog has; several without a region ask for one", () => {
    expect(() => endpointURL(catalog, { type: "compute", interface: "admin", region: "A" })).toThrow(
      /no a admin endpoint of type compute in region A.*it has public@A, internal@A, public@B/,
    );
    expect(() => endpointURL(catalog, { type: "network", interface: "public", region: "A" })).toThrow(
      /lists no such service/,
    );
    expect(() => endpointURL(catalog, { type: "compute", interface: "public", region: undefined })).toThrow(
      /2 URLs.*set \[Global\] region/,
    );
  });
});

describe("a Keystone session over the emulator", () => {
  let h: Harness;
  beforeEach(() => {
    h = startHarness();
  });
  afterEach(() => h.stop());

  const tuning = () => ({ timeoutMs: 5000, now: h.clock.now, sleep: h.clock.sleep, retry: { maxRetries: 0 } });
  const auth = (over: Partial<AuthOptions> = {}): AuthOptions => ({
    authUrl: h.emulator.authUrl,
    method: { kind: "password", user, password: PASSWORD },
    project: { name: "k8s", domain: { id: "default" } },
    region: h.emulator.region,
    interface: "public",
    caFile: undefined,
    certFile: undefined,
    keyFile: undefined,
    tlsInsecure: false,
    ...over,
  });
  const session = (a = auth()) =>
    new KeystoneSession({ client: createKeystoneClient(a.authUrl, tuning()), auth: a, now: h.clock.now });
  const nova = (s: KeystoneSession) =>
    new OpenStackService({
      ...tuning(),
      session: s,
      type: "compute",
      name: "nova",
      interface: "public",
      region: h.emulator.region,
    });

  test("keeps one token until a quarter of its life (at most five minutes) is left, then renews it", async () => {
    const s = session();
    const first = await s.token(ctx);
    h.clock.advance(h.emulator.world.tokenLifetimeMs - 5 * 60_000 - 1);
    expect((await s.token(ctx)).value).toBe(first.value);
    h.clock.advance(1);
    expect((await s.token(ctx)).value).not.toBe(first.value);
    expect(s.issued).toBe(2);
  });

  test("concurrent callers share one token request", async () => {
    const s = session();
    const tokens = await Promise.all([s.token(ctx), s.token(ctx), s.token(ctx)]);
    expect(new Set(tokens.map((t) => t.value)).size).toBe(1);
    expect(h.emulator.calls.count("POST /identity/v3/auth/tokens")).toBe(1);
  });

  test("a service's 401 drops the token and the call is made once more with a new one", async () => {
    const s = session();
    const service = nova(s);
    const flavors = { operation: "listFlavors", method: "GET" as const, path: "/flavors", answer: v.unknown() };
    await service.request(ctx, flavors);
    await h.call("POST", "/_emulator/tokens/expire", { token: null });
    await service.request(ctx, flavors);
    expect(s.issued).toBe(2);
    expect(h.emulator.calls.count("GET /compute/v2.1/flavors")).toBe(3);
  });

  test("a service that keeps answering 401 fails after the one retry", async () => {
    const s = session();
    const service = nova(s);
    await s.token(ctx);
    await h.call("PUT", "/_emulator/faults", {
      body: { failNext: [{ pathPrefix: "/compute/", status: 401, count: 5 }] },
      token: null,
    });
    const call = service.request(ctx, {
      operation: "listFlavors",
      method: "GET",
      path: "/flavors",
      answer: v.unknown(),
    });
    expect(call).rejects.toThrow(/401/);
    await call.catch(() => {});
    expect(h.emulator.calls.count("GET /compute/v2.1/flavors")).toBe(2);
  });

  test("an application credential authenticates; a refused secret never appears in the error", async () => {
    const c = addAppCredential(h.emulator.world, {
      name: "ccm",
      userID: h.emulator.user.id,
      projectID: h.emulator.project.id,
      secret: "the-app-secret-1",
    });
    const good = session(
      auth({
        method: { kind: "application_credential", credential: { id: c.id }, secret: "the-app-secret-1" },
        project: undefined,
      }),
    );
    expect((await good.token(ctx)).projectID).toBe(h.emulator.project.id);
    const bad = session(auth({ method: { kind: "password", user, password: "wrong-password-value" } }));
    const err = await bad.token(ctx).catch((e: Error) => e);
    expect(String((err as Error).message)).toContain("401");
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain("wrong-password-value");
  });
});
