/**
 * Page iteration over a cloud's listing calls. Clouds say where the next page is in different ways — a page number
 * in the body (hcloud's `meta.pagination.next_page`, the sandbox's `pagination.nextPage`), an opaque token, or a
 * `Link: <…>; rel="next"` header — so the provider supplies the reading and the kit does the walking.
 */

/** One fetched page: the parsed answer and the answer's headers (for `Link`). */
export interface Page<T> {
  readonly answer: T;
  readonly headers: Headers;
}

/**
 * Every page, first to last: `fetchPage(undefined)` is the first, and `next` reads the cursor of the following
 * one (`null` or `undefined` after the last). A cursor seen before ends the walk with an error rather than
 * looping forever on a cloud that keeps answering the same page.
 */
export async function* walkPages<T, C>(
  fetchPage: (cursor: C | undefined) => Promise<Page<T>>,
  next: (page: Page<T>) => C | null | undefined,
  operation: string,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<C>();
  let cursor: C | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page.answer;
    const following = next(page);
    if (following === null || following === undefined) return;
    if (seen.has(following)) {
      throw new Error(`${operation}: the cloud sent the page cursor ${JSON.stringify(following)} twice; stopping`);
    }
    seen.add(following);
    cursor = following;
  }
}

/** The target of the `rel="next"` link in a `Link` header (RFC 8288), or `undefined`. */
export function nextLink(headers: Headers): string | undefined {
  const header = headers.get("link");
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(match[2] ?? "");
    const names = (rels?.[1] ?? rels?.[2] ?? "").toLowerCase().split(/\s+/);
    if (names.includes("next")) return match[1];
  }
  return undefined;
}
