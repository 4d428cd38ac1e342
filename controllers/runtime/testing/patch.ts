/**
 * The three patch flavours of the Kubernetes API, as far as the in-memory client needs them.
 *
 * - merge: RFC 7386 JSON merge patch (null deletes, objects merge, everything else replaces).
 * - strategic: treated as a merge patch, after honouring the directives our own code emits: `$patch: replace` on a
 *   map replaces it whole, a `{"$patch":"replace"}` element in a list is dropped (lists replace anyway), and
 *   `$retainKeys` is ignored. A list of scalars that comes with `$deleteFromPrimitiveList/<key>` or a scalar
 *   `$setElementOrder/<key>` (finalizers, as the service controller's patches carry them) is merged as a set:
 *   deletions removed, patch items appended when missing, then ordered as `$setElementOrder` says. Other lists —
 *   those with merge keys (node conditions, addresses) included — are replaced, not merged by key; a real API
 *   server merges them.
 * - json: RFC 6902 (add, remove, replace, move, copy, test).
 */

type Json = unknown;
type JsonObject = Record<string, Json>;

export const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** An invalid patch, or a failed `test` operation. The client turns it into a 422. */
export class PatchError extends Error {
  override readonly name = "PatchError";
}

export const applyMergePatch = (target: Json, patch: Json): Json => {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
};

const isDirectiveKey = (key: string): boolean =>
  key === "$patch" ||
  key === "$retainKeys" ||
  key.startsWith("$setElementOrder/") ||
  key.startsWith("$deleteFromPrimitiveList/");

const isScalar = (value: Json): boolean => value === null || typeof value !== "object";

/**
 * The set merge of a list of scalars (`patchStrategy: merge`), when the patch says so through its directives;
 * `undefined` when `key` is not such a list in this patch.
 */
const mergeScalarList = (target: JsonObject, patch: JsonObject, key: string): Json[] | undefined => {
  const deletions = patch[`$deleteFromPrimitiveList/${key}`];
  const order = patch[`$setElementOrder/${key}`];
  const hasDeletions = Array.isArray(deletions);
  const hasOrder = Array.isArray(order) && order.every(isScalar);
  if (!hasDeletions && !hasOrder) return undefined;
  const value = patch[key];
  if (value !== undefined && value !== null && !(Array.isArray(value) && value.every(isScalar))) return undefined;
  const current = Array.isArray(target[key]) ? (target[key] as Json[]) : [];
  const removed = new Set<Json>(hasDeletions ? deletions : []);
  const merged = value === null ? [] : current.filter((item) => !removed.has(item));
  for (const item of Array.isArray(value) ? value : []) if (!merged.includes(item)) merged.push(item);
  if (!hasOrder) return merged;
  const ordered = (order as Json[]).filter((item) => merged.includes(item));
  return [...ordered, ...merged.filter((item) => !ordered.includes(item))];
};

const scalarListKeys = (patch: JsonObject): Set<string> => {
  const keys = new Set<string>();
  for (const key of Object.keys(patch)) {
    for (const prefix of ["$deleteFromPrimitiveList/", "$setElementOrder/"]) {
      if (key.startsWith(prefix)) keys.add(key.slice(prefix.length));
    }
  }
  return keys;
};

export const applyStrategicMergePatch = (target: Json, patch: Json): Json => {
  if (Array.isArray(patch)) {
    return patch.filter((e) => !(isPlainObject(e) && e.$patch === "replace" && Object.keys(e).length === 1));
  }
  if (!isPlainObject(patch)) return structuredClone(patch);
  if (patch.$patch === "delete") return undefined;
  const replace = patch.$patch === "replace";
  const result: JsonObject = !replace && isPlainObject(target) ? { ...target } : {};
  const handled = new Set<string>();
  for (const key of scalarListKeys(patch)) {
    const merged = mergeScalarList(result, patch, key);
    if (merged === undefined) continue;
    handled.add(key);
    if (merged.length === 0) delete result[key];
    else result[key] = merged;
  }
  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key) || handled.has(key)) continue;
    if (value === null) delete result[key];
    else {
      const merged = applyStrategicMergePatch(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    }
  }
  return result;
};

interface JsonPatchOp {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: Json;
}

const parsePointer = (pointer: string): string[] => {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
};

const parentOf = (doc: Json, tokens: string[]): { parent: Json; last: string } => {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(token)] : isPlainObject(node) ? node[token] : undefined;
    if (node === undefined) throw new PatchError(`path not found: /${tokens.join("/")}`);
  }
  return { parent: node, last: tokens[tokens.length - 1] ?? "" };
};

const getAt = (doc: Json, pointer: string): Json => {
  let node = doc;
  for (const token of parsePointer(pointer)) {
    node = Array.isArray(node) ? node[Number(token)] : isPlainObject(node) ? node[token] : undefined;
    if (node === undefined) throw new PatchError(`path not found: ${pointer}`);
  }
  return node;
};

const arrayIndex = (arr: Json[], token: string, forInsert: boolean): number => {
  const index = token === "-" && forInsert ? arr.length : Number(token);
  const max = forInsert ? arr.length : arr.length - 1;
  if (!Number.isInteger(index) || index < 0 || index > max) throw new PatchError(`index out of range: ${token}`);
  return index;
};

const removeAt = (doc: Json, pointer: string): Json => {
  const { parent, last } = parentOf(doc, parsePointer(pointer));
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, false), 1)[0];
  if (isPlainObject(parent) && last in parent) {
    const old = parent[last];
    delete parent[last];
    return old;
  }
  throw new PatchError(`path not found: ${pointer}`);
};

const addAt = (doc: Json, pointer: string, value: Json, replace: boolean): Json => {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, last } = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, !replace);
    parent.splice(index, replace ? 1 : 0, structuredClone(value));
  } else if (isPlainObject(parent)) {
    if (replace && !(last in parent)) throw new PatchError(`path not found: ${pointer}`);
    parent[last] = structuredClone(value);
  } else throw new PatchError(`path not found: ${pointer}`);
  return doc;
};

export const applyJsonPatch = (target: Json, patch: Json): Json => {
  if (!Array.isArray(patch)) throw new PatchError("a JSON patch must be an array of operations");
  let doc = structuredClone(target);
  for (const raw of patch as JsonPatchOp[]) {
    switch (raw.op) {
      case "add":
        doc = addAt(doc, raw.path, raw.value, false);
        break;
      case "replace":
        doc = addAt(doc, raw.path, raw.value, true);
        break;
      case "remove":
        removeAt(doc, raw.path);
        break;
      case "move":
        doc = addAt(doc, raw.path, removeAt(doc, raw.from ?? ""), false);
        break;
      case "copy":
        doc = addAt(doc, raw.path, getAt(doc, raw.from ?? ""), false);
        break;
      case "test":
        if (JSON.stringify(getAt(doc, raw.path)) !== JSON.stringify(raw.value)) {
          throw new PatchError(`test failed at ${raw.path}`);
        }
        break;
      default:
        throw new PatchError(`unknown JSON patch operation ${JSON.stringify(raw.op)}`);
    }
  }
  return doc;
};
