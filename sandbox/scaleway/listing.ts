/**
 * How Scaleway's list endpoints page: `page` (from 1) and a page size — `per_page` on the Instance API,
 * `page_size` on Elastic Metal and IPAM — default 50, at most 100. The body carries `total_count` (every match,
 * not the page's), and the Instance API also sends it as the `x-total-count` header.
 */

import { pageOf, wholeQuery } from "../kit/listing.ts";
import { json } from "../kit/router.ts";
import { invalidArguments } from "./errors.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const invalid = (name: string, problem: string) => invalidArguments({ [name]: problem });

export interface PageStyle {
  /** `per_page` (Instance) or `page_size` (Elastic Metal, IPAM). */
  readonly sizeParam: "per_page" | "page_size";
  /** Send `x-total-count` (Instance). */
  readonly totalHeader: boolean;
}

export const instancePages: PageStyle = { sizeParam: "per_page", totalHeader: true };
export const regionalPages: PageStyle = { sizeParam: "page_size", totalHeader: false };

/** `{<key>: this page's items, total_count}`; a bad `page` or page size is `invalid_arguments` naming it. */
export function pageAnswer<T>(
  key: string,
  items: readonly T[],
  url: URL,
  style: PageStyle,
  view: (item: T) => unknown,
): Response {
  const q = url.searchParams;
  const page = wholeQuery(q, "page", { min: 1, max: 1_000_000, fallback: 1 }, invalid);
  const size = wholeQuery(q, style.sizeParam, { min: 1, max: MAX_PAGE_SIZE, fallback: DEFAULT_PAGE_SIZE }, invalid);
  const headers: Record<string, string> = style.totalHeader ? { "x-total-count": String(items.length) } : {};
  return json({ [key]: pageOf(items, page, size).map(view), total_count: items.length }, 200, headers);
}
