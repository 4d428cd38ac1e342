import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { rejection } from "../../testing.ts";
import { nextLink, walkPages } from "./pages.ts";
import { useTestBed } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
const bed = useTestBed({ name: "test/api", provider: "test", path: "/v1" });
const client = () => bed.client();

const collect = async <T>(pages: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
};

describe("client.pages", () => {
  test("follows the next page the answer names (hcloud's meta.pagination.next_page) to the last", async () => {
    const items = ["a", "b", "c", "d", "e"];
    bed.server.answer((r) => {
      const page = Number(new URL(r.path, bed.server.url).searchParams.get("page"));
      const next = page * 2 < items.length ? page + 1 : null;
      return Response.json({
        servers: items.slice((page - 1) * 2, page * 2),
        meta: { pagination: { next_page: next } },
      });
    });
    const schema = v.object({
      servers: v.array(v.string()),
      meta: v.object({ pagination: v.object({ next_page: v.nullable(v.number()) }) }),
    });
    const pages = client().pages(
      ctx,
      (page: number | undefined) => ({
        operation: "listServers",
        method: "GET",
        path: "/servers",
        query: { page: page ?? 1, per_page: 2 },
        answer: schema,
      }),
      ({ answer }) => answer.meta.pagination.next_page,
    );
    expect((await collect(pages)).flatMap((p) => p.servers)).toEqual(items);
    expect(bed.server.received.map((r) => r.path)).toEqual([
      "/v1/servers?page=1&per_page=2",
      "/v1/servers?page=2&per_page=2",
      "/v1/servers?page=3&per_page=2",
    ]);
  });

  test("follows Link headers, whose URLs are under the base URL", async () => {
    bed.server.answer((r) => {
      const after = r.path === "/v1/items" ? `<${bed.server.url}/v1/items?cursor=2>; rel="next"` : undefined;
      return Response.json({ items: [r.path] }, { headers: after ? { link: after } : {} });
    });
    const pages = client().pages(
      ctx,
      (url: string | undefined) => ({
        operation: "listItems",
        method: "GET",
        path: url ?? "/items",
        answer: v.object({ items: v.array(v.string()) }),
      }),
      ({ headers }) => nextLink(headers),
    );
    expect((await collect(pages)).flatMap((p) => p.items)).toEqual(["/v1/items", "/v1/items?cursor=2"]);
  });

  test("a cloud that names the same page again ends the walk with an error instead of a loop", async () => {
    bed.server.answer(() => Response.json({ next: 2 }));
    const pages = client().pages(
      ctx,
      (page: number | undefined) => ({
        operation: "list",
        method: "GET",
        path: "/x",
        query: { page },
        answer: v.object({ next: v.number() }),
      }),
      ({ answer }) => answer.next,
    );
    const err = await rejection(() => collect(pages));
    expect(err.message).toBe("test/api.list: the cloud sent the page cursor 2 twice; stopping");
  });
});

describe("walkPages", () => {
  test("stops after the page whose next cursor is null or undefined, and fetches lazily", async () => {
    const fetched: (number | undefined)[] = [];
    const walk = walkPages(
      async (cursor: number | undefined) => {
        fetched.push(cursor);
        return { answer: cursor ?? 0, headers: new Headers() };
      },
      ({ answer }) => (answer < 2 ? answer + 1 : null),
      "op",
    );
    expect((await walk.next()).value).toBe(0);
    expect(fetched).toEqual([undefined]);
    expect(await collect(walk)).toEqual([1, 2]);
  });
});

describe("nextLink", () => {
  test.each([
    ['<https://x/v1/a?page=2>; rel="next"', "https://x/v1/a?page=2"],
    ['<https://x/a?p=1>; rel="prev", <https://x/a?p=3>; rel="next"', "https://x/a?p=3"],
    ["<https://x/a?p=3>; rel=next", "https://x/a?p=3"],
    ['<https://x/a?p=9>; rel="last next"', "https://x/a?p=9"],
    ['<https://x/a?p=1>; rel="prev"', undefined],
    ["", undefined],
  ])("%p → %p", (header, want) => {
    expect(nextLink(new Headers(header ? { link: header } : {}))).toBe(want);
  });
});
