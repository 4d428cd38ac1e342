import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { nextLink } from "../../providers/kit/http/pages.ts";
import { createServer, type Harness, startHarness } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

const pageSchema = v.object({
  servers: v.array(v.object({ id: v.number(), name: v.string() })),
  meta: v.object({
    pagination: v.object({ next_page: v.nullable(v.number()), total_entries: v.nullable(v.number()) }),
  }),
});

async function seed(count: number, labels: (i: number) => Record<string, string> = () => ({})) {
  for (let i = 1; i <= count; i++) await createServer(h, `node-${String(i).padStart(3, "0")}`, { labels: labels(i) });
}

describe("pages", () => {
  test("the kit's client follows meta.pagination.next_page through 120 servers in 3 calls of 50", async () => {
    await seed(120);
    h.emulator.calls.reset();
    const pages = h.client().pages(
      ctx,
      (page: number | undefined) => ({
        operation: "listServers",
        method: "GET",
        path: "/servers",
        query: { page: page ?? 1, per_page: 50 },
        answer: pageSchema,
      }),
      ({ answer }) => answer.meta.pagination.next_page,
    );
    const names: string[] = [];
    for await (const page of pages) names.push(...page.servers.map((s) => s.name));
    expect(names).toHaveLength(120);
    expect(new Set(names).size).toBe(120);
    expect(h.emulator.calls.count("GET /v1/servers")).toBe(3);
  });

  test("the Link header names prev, next and last, and following next reaches every item", async () => {
    await seed(7);
    const first = await h.call("GET", "/servers?per_page=3&page=2");
    expect(first.body.meta.pagination).toEqual({
      page: 2,
      per_page: 3,
      previous_page: 1,
      next_page: 3,
      last_page: 3,
      total_entries: 7,
    });
    const links = [...(first.headers.get("link") ?? "").matchAll(/<([^>]+)>; rel="(\w+)"/g)].map(([, url, rel]) => {
      const q = new URL(url ?? "").searchParams;
      return [rel, q.get("page"), q.get("per_page")];
    });
    expect(links).toEqual([
      ["prev", "1", "3"],
      ["next", "3", "3"],
      ["last", "3", "3"],
    ]);
    const pages = h.client().pages(
      ctx,
      (url: string | undefined) => ({
        operation: "listServers",
        method: "GET",
        path: url ?? "/servers?per_page=3",
        answer: pageSchema,
      }),
      ({ headers }) => nextLink(headers),
    );
    let count = 0;
    for await (const page of pages) count += page.servers.length;
    expect(count).toBe(7);
  });

  test("one page has no Link header and null neighbours", async () => {
    await seed(2);
    const answer = await h.call("GET", "/servers");
    expect(answer.headers.get("link")).toBeNull();
    expect(answer.body.meta.pagination).toMatchObject({
      page: 1,
      per_page: 25,
      previous_page: null,
      next_page: null,
      last_page: 1,
    });
  });

  test.each([
    ["per_page=51", "per_page"],
    ["per_page=0", "per_page"],
    ["page=0", "page"],
    ["page=x", "page"],
    ["sort=colour", "sort"],
    ["sort=name:sideways", "sort"],
  ])("%s is invalid_input naming %s", async (query, field) => {
    const answer = await h.call("GET", `/servers?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("invalid_input");
    expect(answer.body.error.details.fields.map((f: { name: string }) => f.name)).toEqual([field]);
  });
});

describe("filters and sort", () => {
  test("name= matches exactly one server", async () => {
    await seed(3);
    const answer = await h.call("GET", "/servers?name=node-002");
    expect(answer.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-002"]);
    expect((await h.call("GET", "/servers?name=node-00")).body.servers).toEqual([]);
  });

  test("sort by name descending, and by id", async () => {
    await seed(3);
    const desc = await h.call("GET", "/servers?sort=name:desc");
    expect(desc.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-003", "node-002", "node-001"]);
    const asc = await h.call("GET", "/servers?sort=id:asc");
    expect(asc.body.servers.map((s: { name: string }) => s.name)).toEqual(["node-001", "node-002", "node-003"]);
  });

  const labelsOf = (i: number): Record<string, string> =>
    ({
      1: { role: "worker", "hcloud-ccm/service-uid": "abc" },
      2: { role: "control-plane" },
      3: { role: "worker", pool: "" },
      4: {},
    })[i] ?? {};

  test.each([
    ["role=worker", [1, 3]],
    ["role==worker", [1, 3]],
    ["role!=worker", [2, 4]],
    ["role", [1, 2, 3]],
    ["!role", [4]],
    ["role in (worker,control-plane)", [1, 2, 3]],
    ["role notin (worker)", [2, 4]],
    ["role=worker,pool", [3]],
    ["role=worker,!pool", [1]],
    ["hcloud-ccm/service-uid=abc", [1]],
    ["pool=", [3]],
  ])("label_selector %s", async (selector, want) => {
    await seed(4, labelsOf);
    const answer = await h.call("GET", `/servers?label_selector=${encodeURIComponent(selector)}`);
    expect(answer.status).toBe(200);
    expect(answer.body.servers.map((s: { name: string }) => Number(s.name.slice(-3)))).toEqual(want);
  });

  test.each(["role in (a,,b)", "a=b=c", "a,,b", "-bad=1", "role notin", "role=a b"])(
    "a broken label_selector %p is invalid_input on label_selector",
    async (selector) => {
      const answer = await h.call("GET", `/servers?label_selector=${encodeURIComponent(selector)}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.details.fields[0].name).toBe("label_selector");
    },
  );
});
