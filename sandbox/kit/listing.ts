/**
 * What every emulator's list endpoints share, whatever their cloud's page shape: reading a whole-number query
 * parameter (`page`, `per_page`) within bounds, and cutting one page out of the filtered, sorted items.
 */

export interface WholeRange {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
}

/** `name` from the query, or its fallback; out of range or not a number throws `invalid(name, problem)`. */
export function wholeQuery(
  q: URLSearchParams,
  name: string,
  range: WholeRange,
  invalid: (name: string, problem: string) => Error,
): number {
  const text = q.get(name);
  if (text === null) return range.fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < range.min || n > range.max) {
    throw invalid(name, `must be a whole number from ${range.min} to ${range.max}, not '${text}'`);
  }
  return n;
}

/** Page `page` (from 1) of `perPage` items. */
export function pageOf<T>(items: readonly T[], page: number, perPage: number): T[] {
  return items.slice((page - 1) * perPage, page * perPage);
}
