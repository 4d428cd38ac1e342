import { describe, expect, test } from "bun:test";
import { createDelegatedAuth } from "./delegated-auth.ts";
import { EmulatorKubeClient, type RecordedRequest } from "./testing/emulator-client.ts";
import { captureLogger } from "./testing/logger.ts";

/** A guard whose TokenReviews know one token, and whose SubjectAccessReviews allow everything. */
const setup = () => {
  const client = new EmulatorKubeClient();
  client.react({ method: "create", resource: "tokenreviews" }, (r: RecordedRequest) => {
    const body = r.body as { spec: { token: string } };
    const known = body.spec.token === "alice-token";
    return { ...body, status: known ? { authenticated: true, user: { username: "alice" } } : { authenticated: false } };
  });
  client.react({ method: "create", resource: "subjectaccessreviews" }, (r: RecordedRequest) => ({
    ...(r.body as object),
    status: { allowed: true },
  }));
  const guard = createDelegatedAuth({
    client,
    alwaysAllowPaths: [],
    maxCacheEntries: 10,
    now: () => 0,
    logger: captureLogger().logger,
  });
  const call = async (token: string) =>
    (await guard(new Request("https://x/metrics", { headers: { authorization: `Bearer ${token}` } }), "/metrics"))
      ?.status ?? 200;
  const tokenReviews = () => client.requestsMatching({ resource: "tokenreviews" }).length;
  return { call, tokenReviews };
};

describe("delegated auth caches", () => {
  test("answer a repeated token from the cache", async () => {
    const { call, tokenReviews } = setup();
    expect(await call("alice-token")).toBe(200);
    expect(await call("alice-token")).toBe(200);
    expect(tokenReviews()).toBe(1);
  });

  test("are bounded: a flood of random tokens pushes old entries out instead of growing", async () => {
    const { call, tokenReviews } = setup();
    await call("alice-token");
    for (let i = 0; i < 50; i++) expect(await call(`random-${i}`)).toBe(401);
    expect(tokenReviews()).toBe(51);
    // Alice's entry, the least recently used of 51 in a cache of 10, is gone: she is reviewed again.
    expect(await call("alice-token")).toBe(200);
    expect(tokenReviews()).toBe(52);
  });
});
