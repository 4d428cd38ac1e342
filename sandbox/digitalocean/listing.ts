/**
 * How every list endpoint pages: `page` (from 1) and `per_page` (default 20, at most 200). The body carries
 * `links.pages` (`first` and `prev` past page 1, `next` and `last` before the last page; `{}` on a single page)
 * and `meta.total`, as the API documents.
 */
import { DoError } from "./errors.ts";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 200;

export interface PageLinks {
  first?: string;
  prev?: string;
  next?: string;
  last?: string;
}

/** `{<key>: items of this page, links: {pages}, meta: {total}}`; a bad `page` or `per_page` is a 400. */
export function page<T>(key: string, items: readonly T[], url: URL, view: (item: T) => unknown): object {
  const q = url.searchParams;
  const number = whole(q, "page", 1);
  const perPage = Math.min(whole(q, "per_page", DEFAULT_PER_PAGE), MAX_PER_PAGE);
  const total = items.length;
  const last = Math.max(1, Math.ceil(total / perPage));
  const link = (n: number) => {
    const target = new URL(url);
    target.searchParams.set("page", String(n));
    target.searchParams.set("per_page", String(perPage));
    return target.toString();
  };
  const pages: PageLinks = {};
  if (number > 1) {
    pages.first = link(1);
    pages.prev = link(Math.min(number - 1, last));
  }
  if (number < last) {
    pages.next = link(number + 1);
    pages.last = link(last);
  }
  const slice = items.slice((number - 1) * perPage, number * perPage);
  return { [key]: slice.map(view), links: { pages }, meta: { total } };
}

function whole(q: URLSearchParams, name: string, fallback: number): number {
  const text = q.get(name);
  if (text === null) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(text)) {
    throw new DoError("bad_request", `${name} must be a whole number from 1, not '${text}'`);
  }
  return Number(text);
}
