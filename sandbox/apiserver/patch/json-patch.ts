/**
 * JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) over parsed JSON.
 *
 * Both return a new document and never touch their input (stored objects are shared, see json.ts). Errors are
 * `PatchError`s: `malformed` for a patch that is not a patch (the server answers 400), otherwise the patch could
 * not be applied — a failed `test`, a missing path (422).
 */
import { clone, deepEqual, isObject, type JsonObject } from "../json.ts";

export class PatchError extends Error {
  override readonly name = "PatchError";
  readonly malformed: boolean;
  constructor(message: string, malformed: boolean) {
    super(message);
    this.malformed = malformed;
  }
}

type Container = JsonObject | unknown[];

const parsePointer = (pointer: string): string[] => {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`, true);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
};

const arrayIndex = (token: string, length: number, forInsert: boolean): number => {
  if (token === "-" && forInsert) return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index ${JSON.stringify(token)}`, false);
  const i = Number(token);
  if (i > length || (!forInsert && i === length)) throw new PatchError(`array index ${i} out of bounds`, false);
  return i;
};

/** The parent container of the pointer's target, and the last token. */
const locate = (doc: unknown, tokens: string[], path: string): { parent: Container; key: string } => {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else if (isObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else throw new PatchError(`path ${JSON.stringify(path)} does not exist`, false);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new PatchError(`path ${JSON.stringify(path)} does not exist`, false);
  return { parent: cur, key: tokens[tokens.length - 1]! };
};

const read = (doc: unknown, path: string): unknown => {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return doc;
  const { parent, key } = locate(doc, tokens, path);
  if (Array.isArray(parent)) return parent[arrayIndex(key, parent.length, false)];
  if (!Object.hasOwn(parent, key)) throw new PatchError(`path ${JSON.stringify(path)} does not exist`, false);
  return parent[key];
};

const remove = (doc: unknown, path: string): unknown => {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document", false);
  const { parent, key } = locate(doc, tokens, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(key, parent.length, false), 1)[0];
  if (!Object.hasOwn(parent, key)) throw new PatchError(`path ${JSON.stringify(path)} does not exist`, false);
  const old = parent[key];
  delete parent[key];
  return old;
};

/** Adds (or, with `replace`, overwrites an existing member); returns the new document (the root may change). */
const put = (doc: unknown, path: string, value: unknown, mode: "add" | "replace"): unknown => {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens, path);
  if (Array.isArray(parent)) {
    if (mode === "add") parent.splice(arrayIndex(key, parent.length, true), 0, value);
    else parent[arrayIndex(key, parent.length, false)] = value;
  } else {
    if (mode === "replace" && !Object.hasOwn(parent, key)) {
      throw new PatchError(`path ${JSON.stringify(path)} does not exist`, false);
    }
    parent[key] = value;
  }
  return doc;
};

const field = (op: JsonObject, name: string): string => {
  const v = op[name];
  if (typeof v !== "string") throw new PatchError(`operation ${JSON.stringify(op.op)} needs a string "${name}"`, true);
  return v;
};

export const applyJsonPatch = (document: unknown, patch: unknown): unknown => {
  if (!Array.isArray(patch)) throw new PatchError("a JSON patch must be an array of operations", true);
  let doc = clone(document);
  for (const raw of patch) {
    if (!isObject(raw)) throw new PatchError("a JSON patch operation must be an object", true);
    const path = field(raw, "path");
    const needValue = (): unknown => {
      if (!Object.hasOwn(raw, "value")) throw new PatchError(`operation ${raw.op} needs a "value"`, true);
      return clone(raw.value);
    };
    switch (raw.op) {
      case "add":
        doc = put(doc, path, needValue(), "add");
        break;
      case "replace":
        doc = put(doc, path, needValue(), "replace");
        break;
      case "remove":
        remove(doc, path);
        break;
      case "move": {
        const from = field(raw, "from");
        if (path.startsWith(`${from}/`)) throw new PatchError("cannot move a value into one of its children", false);
        const value = remove(doc, from);
        doc = put(doc, path, value, "add");
        break;
      }
      case "copy":
        doc = put(doc, path, clone(read(doc, field(raw, "from"))), "add");
        break;
      case "test":
        if (!deepEqual(read(doc, path), raw.value)) {
          throw new PatchError(`testing value ${JSON.stringify(path)} failed: test failed`, false);
        }
        break;
      default:
        throw new PatchError(`unexpected operation ${JSON.stringify(raw.op)}`, true);
    }
  }
  return doc;
};

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
};
