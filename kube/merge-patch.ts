/**
 * The JSON merge patch (RFC 7386) that turns `before` into `after`: only what differs, so a patch computed
 * against a trimmed cached object (kube/trim.ts) leaves every field the cache dropped as the server has it.
 * Lists are replaced whole (merge patches cannot address elements); a key `after` lacks is sent as `null`.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The patch from `before` to `after`, or `undefined` when nothing differs. */
export function mergePatchOf(before: unknown, after: unknown): Record<string, Json> | undefined {
  if (!isPlainObject(before) || !isPlainObject(after)) {
    throw new Error("mergePatchOf compares two objects");
  }
  const patch: Record<string, Json> = {};
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before[key];
    if (same(old, value)) continue;
    patch[key] = isPlainObject(old) && isPlainObject(value) ? (mergePatchOf(old, value) ?? {}) : (value as Json);
  }
  for (const key of Object.keys(before)) {
    if (before[key] !== undefined && after[key] === undefined) patch[key] = null;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
