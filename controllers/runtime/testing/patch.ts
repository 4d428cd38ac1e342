/**
 * The three patch flavours of the Kubernetes API, as far as the in-memory client needs them.
 *
 * - merge: RFC 7386 JSON merge patch (null deletes, objects merge, everything else replaces).
 * - strategic: treated as a merge patch, after honouring the directives our own code emits: `$patch: replace` on a
 *   map replaces it whole, a `{"$patch":"replace"}` element in a list is dropped (lists replace anyway), and the
 *   bookkeeping keys `$setElementOrder/…`, `$retainKeys`, `$deleteFromPrimitiveList/…` are ignored. Lists with merge
 *   keys (node conditions, addresses) are therefore replaced, not merged by key — a real API server merges them.
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

export const applyStrategicMergePatch = (target: Json, patch: Json): Json => {
  if (Array.isArray(patch)) {
    return patch.filter((e) => !(isPlainObject(e) && e.$patch === "replace" && Object.keys(e).length === 1));
  }
  if (!isPlainObject(patch)) return structuredClone(patch);
  if (patch.$patch === "delete") return undefined;
  const replace = patch.$patch === "replace";
  const result: JsonObject = !replace && isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key)) continue;
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
