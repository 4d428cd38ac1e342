/**
 * Parsed-JSON helpers. Stored objects are plain parsed JSON and are never mutated once stored: every write builds
 * a new object, so lists, watch history and cached serialisations can share them safely.
 */

export type JsonObject = Record<string, unknown>;

/** A stored or in-flight API object: parsed JSON with (after defaulting) a `metadata` object. */
export type Obj = JsonObject & { metadata?: JsonObject };

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep copy of parsed JSON (cheaper than structuredClone for plain data, and drops `undefined`). */
export const clone = <T>(v: T): T => {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k in v) {
      const x = v[k];
      if (x !== undefined) out[k] = clone(x);
    }
    return out as T;
  }
  return v;
};

export const deepEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
};

export const metaOf = (obj: Obj): JsonObject => {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
};

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The value at a dotted path (`spec.nodeName`), or undefined. */
export const getPath = (obj: unknown, path: string): unknown => {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
};

/** `labels` or `annotations` as a string map (absent ⇒ empty). */
export const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
};
