import { afterEach, describe, expect, test } from "bun:test";
import { type Answer, type Harness, lbBody, startHarness } from "./testing.ts";

let h: Harness;
afterEach(() => h.stop());

describe("the error envelope", () => {
  test.each<[string, (h: Harness) => Promise<Answer>, number, string]>([
    ["a wrong token", (h) => h.call("GET", "/droplets", undefined, "nope"), 401, "unauthorized"],
    ["no token on the control API", (h) => h.call("GET", "/_emulator/faults", undefined, "nope"), 401, "unauthorized"],
    ["an unknown Droplet", (h) => h.call("GET", "/droplets/999"), 404, "not_found"],
    ["a Droplet ID that is not a number", (h) => h.call("GET", "/droplets/abc"), 404, "not_found"],
    ["an unknown endpoint", (h) => h.call("GET", "/volcanoes"), 404, "not_found"],
    ["a wrong method", (h) => h.call("PATCH", "/droplets"), 405, "method_not_allowed"],
    ["a body that is not JSON", (h) => h.call("POST", "/load_balancers", "{nope"), 400, "bad_request"],
    ["a page that is not a number", (h) => h.call("GET", "/droplets?page=x"), 400, "bad_request"],
    [
      "a body missing a required field",
      (h) => h.call("POST", "/load_balancers", { tag: "k8s" }),
      422,
      "unprocessable_entity",
    ],
    ["tag_name with name", (h) => h.call("GET", "/droplets?tag_name=a&name=b"), 422, "unprocessable_entity"],
  ])("%s", async (_, run, status, id) => {
    h = startHarness();
    const answer = await run(h);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ id, message: expect.any(String), request_id: expect.any(String) });
    expect(answer.headers.get("x-request-id")).toBe(answer.body.request_id);
  });
});

describe("droplets", () => {
  test("lists Droplets in pages with links.pages and meta.total", async () => {
    h = startHarness();
    for (let i = 1; i <= 5; i++) h.droplet({ name: `node-${i}` });
    const first = await h.call("GET", "/droplets?per_page=2");
    expect(first.body.droplets.map((d: { name: string }) => d.name)).toEqual(["node-1", "node-2"]);
    expect(first.body.meta).toEqual({ total: 5 });
    expect(Object.keys(first.body.links.pages).sort()).toEqual(["last", "next"]);
    expect(new URL(first.body.links.pages.next).searchParams.get("page")).toBe("2");
    expect(new URL(first.body.links.pages.last).searchParams.get("page")).toBe("3");
    const last = await h.call("GET", "/droplets?per_page=2&page=3");
    expect(last.body.droplets.map((d: { name: string }) => d.name)).toEqual(["node-5"]);
    expect(Object.keys(last.body.links.pages).sort()).toEqual(["first", "prev"]);
    const all = await h.call("GET", "/droplets");
    expect(all.body.links).toEqual({ pages: {} });
  });

  test("caps per_page at 200", async () => {
    h = startHarness();
    for (let i = 1; i <= 201; i++) h.droplet({ name: `node-${i}` });
    const answer = await h.call("GET", "/droplets?per_page=500");
    expect(answer.body.droplets).toHaveLength(200);
    expect(answer.body.meta.total).toBe(201);
  });

  test("filters by tag_name and by name", async () => {
    h = startHarness();
    h.droplet({ name: "a", tags: ["k8s"] });
    h.droplet({ name: "b", tags: ["other"] });
    const tagged = await h.call("GET", "/droplets?tag_name=k8s");
    expect(tagged.body.droplets.map((d: { name: string }) => d.name)).toEqual(["a"]);
    const named = await h.call("GET", "/droplets?name=b");
    expect(named.body.droplets.map((d: { name: string }) => d.name)).toEqual(["b"]);
  });

  test("answers one Droplet with its region, size and public and private addresses", async () => {
    h = startHarness();
    const id = h.droplet({ name: "node-1", region: "fra1", size: "s-2vcpu-4gb", status: "off" });
    const { body } = await h.call("GET", `/droplets/${id}`);
    expect(body.droplet).toMatchObject({ id, name: "node-1", status: "off", size_slug: "s-2vcpu-4gb", vcpus: 2 });
    expect(body.droplet.region.slug).toBe("fra1");
    expect(body.droplet.networks.v4.map((n: { type: string }) => n.type).sort()).toEqual(["private", "public"]);
    expect(body.droplet.networks.v6[0].type).toBe("public");
  });

  test("the control API makes, changes and removes Droplets", async () => {
    h = startHarness();
    const made = await h.call("POST", "/_emulator/droplets", { name: "n", status: "new", tags: ["k8s"] });
    expect(made.status).toBe(201);
    const id = made.body.droplet.id;
    expect((await h.call("PUT", `/_emulator/droplets/${id}`, { status: "active" })).body.droplet.status).toBe("active");
    expect((await h.call("DELETE", `/_emulator/droplets/${id}`)).status).toBe(204);
    expect((await h.call("GET", `/droplets/${id}`)).status).toBe(404);
  });
});

test("the account answers its limits and status", async () => {
  h = startHarness();
  const { status, body } = await h.call("GET", "/account");
  expect(status).toBe(200);
  expect(body.account).toMatchObject({ droplet_limit: 25, status: "active", email_verified: true });
});

describe("rate limit", () => {
  test("every answer carries ratelimit-limit, -remaining and -reset, 5000 an hour", async () => {
    h = startHarness();
    const answer = await h.call("GET", "/account");
    expect(answer.headers.get("ratelimit-limit")).toBe("5000");
    expect(answer.headers.get("ratelimit-remaining")).toBe("4999");
    expect(Number(answer.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(Math.floor(h.clock.now() / 1000));
  });

  test("a spent budget is 429 too_many_requests until it refills", async () => {
    h = startHarness();
    await h.call("PUT", "/_emulator/rate-limit", { limit: 2, perHour: 3600 });
    expect((await h.call("GET", "/account")).status).toBe(200);
    expect((await h.call("GET", "/account")).status).toBe(200);
    const refused = await h.call("GET", "/account");
    expect(refused.status).toBe(429);
    expect(refused.body.id).toBe("too_many_requests");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    h.clock.advance(1000);
    expect((await h.call("GET", "/account")).status).toBe(200);
  });
});

describe("faults", () => {
  test.each([
    ["too_many_requests", 429],
    ["unprocessable_entity", 422],
    ["server_error", 500],
    ["service_unavailable", 503],
  ] as const)("answers the next calls with %s", async (id, status) => {
    h = startHarness();
    await h.call("PUT", "/_emulator/faults", {
      failNext: [{ method: "post", pathPrefix: "/load_balancers", id, count: 2 }],
    });
    expect((await h.call("GET", "/load_balancers")).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const answer = await h.call("POST", "/load_balancers", lbBody());
      expect(answer.status).toBe(status);
      expect(answer.body.id).toBe(id);
    }
    expect((await h.call("POST", "/load_balancers", lbBody())).status).toBe(202);
    expect((await h.call("GET", "/_emulator/faults")).body.faults.failNext).toEqual([]);
  });

  test("an error rate of 1 answers every call with 500, and latency waits before answering", async () => {
    const waits: number[] = [];
    h = startHarness({ sleep: async (ms) => void waits.push(ms) });
    await h.call("PUT", "/_emulator/faults", { errorRate: 1, latencyMs: 250 });
    const answer = await h.call("GET", "/droplets");
    expect(answer.status).toBe(500);
    expect(answer.body.id).toBe("server_error");
    expect(waits).toEqual([250]);
  });

  test("refuses a fault configuration it does not know", async () => {
    h = startHarness();
    const answer = await h.call("PUT", "/_emulator/faults", { failNext: [{ pathPrefix: "x", id: "nope", count: 0 }] });
    expect(answer.status).toBe(422);
  });

  test("counts calls by route pattern", async () => {
    h = startHarness();
    const id = h.droplet({ name: "n" });
    await h.call("GET", `/droplets/${id}`);
    await h.call("GET", "/droplets/1");
    const { body } = await h.call("GET", "/_emulator/calls");
    expect(body.calls.byRoute["GET /v2/droplets/:id"]).toEqual({ calls: 2, failed: 1 });
  });
});
