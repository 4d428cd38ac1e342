/**
 * How every list endpoint pages: `page` (from 1) and `per_page` (default 20; more than 200 is cut to 200, not
 * refused, as the API does). The body carries `links.pages` (`first` and `prev` past page 1, `next` and `last`
 * before the last page; `{}` on a single page) and `meta.total`, as the API documents. The parameters are read
 * with the kit's `wholeQuery`.
 */
import { pageOf, type WholeRange, wholeQuery } from "../kit/listing.ts";
import { DoError } from "./errors.ts";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 200;

export interface PageLinks {
  first?: string;
  prev?: string;
  next?: string;
  last?: string;
}

/** Any page number or size up to nine digits: `per_page` is clamped after reading, not refused. */
const ANY: Omit<WholeRange, "fallback"> = { min: 1, max: 999_999_999 };

const invalid = (name: string, problem: string) => new DoError("bad_request", `${name} ${problem}`);

/** `{<key>: items of this page, links: {pages}, meta: {total}}`; a bad `page` or `per_page` is a 400. */
export function page<T>(key: string, items: readonly T[], url: URL, view: (item: T) => unknown): object {
  const q = url.searchParams;
  const number = wholeQuery(q, "page", { ...ANY, fallback: 1 }, invalid);
  const perPage = Math.min(wholeQuery(q, "per_page", { ...ANY, fallback: DEFAULT_PER_PAGE }, invalid), MAX_PER_PAGE);
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
  return { [key]: pageOf(items, number, perPage).map(view), links: { pages }, meta: { total } };
}
