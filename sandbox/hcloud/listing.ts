/**
 * How every list endpoint reads its query: `name` (exact), `label_selector`, `sort=<field>[:asc|:desc]`
 * (repeatable), then a page: `page` (from 1) and `per_page` (default 25, at most 50). The answer carries
 * `meta.pagination` and a `Link` header with `prev`, `next` and `last`, as the API documents.
 */
import { pageOf, wholeQuery } from "../kit/listing.ts";
import { invalidInput } from "./errors.ts";
import { type Labels, parseLabelSelector } from "./labels.ts";

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 50;

export interface Pagination {
  page: number;
  per_page: number;
  previous_page: number | null;
  next_page: number | null;
  last_page: number | null;
  total_entries: number | null;
}

export interface Listed<T> {
  readonly items: T[];
  readonly pagination: Pagination;
  /** The `Link` header's value, or `undefined` when there is one page only. */
  readonly link: string | undefined;
}

export interface ListRules<T> {
  /** Fields `sort` accepts, and how to read them. */
  readonly sortable: Readonly<Record<string, (item: T) => string | number>>;
  readonly labels?: (item: T) => Labels;
  readonly name?: (item: T) => string;
  /** Other filters this endpoint accepts (`status` on servers, `type` on certificates), applied first. */
  readonly filter?: (item: T, query: URLSearchParams) => boolean;
}

/** Filters, sorts and pages `items` by the request URL's query; bad parameters are `invalid_input` naming them. */
export function list<T>(items: readonly T[], url: URL, rules: ListRules<T>): Listed<T> {
  const q = url.searchParams;
  const page = wholeQuery(q, "page", { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 1 }, invalid);
  const perPage = wholeQuery(q, "per_page", { min: 1, max: MAX_PER_PAGE, fallback: DEFAULT_PER_PAGE }, invalid);
  const compare = comparator(q.getAll("sort"), rules.sortable);
  let out = items.filter((item) => rules.filter?.(item, q) ?? true);
  const name = q.get("name");
  if (name !== null && rules.name) out = out.filter((item) => rules.name?.(item) === name);
  const selector = q.get("label_selector");
  if (selector !== null && rules.labels) {
    const matches = parseLabelSelector(selector);
    out = out.filter((item) => matches(rules.labels?.(item) ?? {}));
  }
  out.sort(compare);
  const total = out.length;
  const last = Math.max(1, Math.ceil(total / perPage));
  const pagination: Pagination = {
    page,
    per_page: perPage,
    previous_page: page > 1 ? Math.min(page - 1, last) : null,
    next_page: page < last ? page + 1 : null,
    last_page: last,
    total_entries: total,
  };
  return { items: pageOf(out, page, perPage), pagination, link: linkHeader(url, pagination) };
}

function linkHeader(url: URL, p: Pagination): string | undefined {
  const rel = (page: number, name: string) => {
    const target = new URL(url);
    target.searchParams.set("page", String(page));
    target.searchParams.set("per_page", String(p.per_page));
    return `<${target.toString()}>; rel="${name}"`;
  };
  const parts: string[] = [];
  if (p.previous_page !== null) parts.push(rel(p.previous_page, "prev"));
  if (p.next_page !== null) parts.push(rel(p.next_page, "next"));
  if (p.last_page !== null && p.last_page > 1) parts.push(rel(p.last_page, "last"));
  return parts.length > 0 ? parts.join(", ") : undefined;
}

const invalid = (name: string, problem: string) => invalidInput({ [name]: [problem] });

/** Items in `sort` order, ties broken by the earlier keys, and by `id` last. */
function comparator<T>(
  sorts: readonly string[],
  sortable: Readonly<Record<string, (item: T) => string | number>>,
): (a: T, b: T) => number {
  const keys = sorts.map((s) => {
    const [field = "", direction = "asc", ...rest] = s.split(":");
    const read = sortable[field];
    if (!read || rest.length > 0 || (direction !== "asc" && direction !== "desc")) {
      const allowed = Object.keys(sortable).flatMap((f) => [f, `${f}:asc`, `${f}:desc`]);
      throw invalidInput({ sort: [`'${s}' is not one of ${allowed.join(", ")}`] });
    }
    return { read, sign: direction === "desc" ? -1 : 1 };
  });
  const id = sortable.id;
  if (id) keys.push({ read: id, sign: 1 });
  return (a, b) => {
    for (const { read, sign } of keys) {
      const x = read(a);
      const y = read(b);
      if (x < y) return -sign;
      if (x > y) return sign;
    }
    return 0;
  };
}
