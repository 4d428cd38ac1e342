/**
 * Strategic merge patch, as kube-apiserver applies `application/strategic-merge-patch+json`.
 *
 * Maps merge recursively and `null` deletes a field. Lists follow the table in merge-keys.ts: lists of maps with a
 * merge key merge element by element, merged primitive lists are sets (union, first occurrence kept), and every
 * other list is replaced whole. Directives: `$patch: replace | delete | merge` (on a map, or as a list element),
 * `$retainKeys`, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`.
 *
 * Order of a merged map list: the elements the patch names (in `$setElementOrder`, else in the patch list) in that
 * order, interleaved with the elements only the server has, in their old order; a server-only element goes first
 * when both it and the patch element are old elements and it came first before.
 */
import { clone, deepEqual, isObject, type JsonObject } from "../json.ts";
import { PatchError } from "./json-patch.ts";
import type { ListStrategy, MergeKeyTable } from "./merge-keys.ts";

const PATCH = "$patch";
const RETAIN = "$retainKeys";
const ORDER = "$setElementOrder/";
const DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";
const DELETED = Symbol("deleted");

const isDirective = (k: string): boolean =>
  k === PATCH || k === RETAIN || k.startsWith(ORDER) || k.startsWith(DELETE_PRIMITIVE);

const malformed = (msg: string): PatchError => new PatchError(msg, true);

export const applyStrategicMergePatch = (original: unknown, patch: unknown, table: MergeKeyTable): unknown => {
  if (!isObject(patch)) throw malformed("a strategic merge patch must be a JSON object");
  const out = mergeMap(isObject(original) ? original : undefined, patch, "", table);
  if (out === DELETED) throw malformed("a strategic merge patch cannot delete the whole object");
  return out;
};

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const stringList = (v: unknown, what: string): string[] => {
  if (!Array.isArray(v)) throw malformed(`${what} must be a list`);
  return v.map((x) => {
    if (typeof x !== "string") throw malformed(`${what} must be a list of strings`);
    return x;
  });
};

function mergeMap(
  orig: JsonObject | undefined,
  patch: JsonObject,
  path: string,
  table: MergeKeyTable,
): JsonObject | typeof DELETED {
  const directive = patch[PATCH];
  if (directive === "delete") return DELETED;
  if (directive === "replace") return mergeMap(undefined, { ...patch, [PATCH]: undefined }, path, table);
  if (directive !== undefined && directive !== "merge") throw malformed(`Unknown patch type: ${String(directive)}`);

  const out: JsonObject = orig ? { ...orig } : {};
  if (patch[RETAIN] !== undefined) {
    const keep = new Set(stringList(patch[RETAIN], RETAIN));
    for (const k of Object.keys(patch)) {
      if (!isDirective(k) && !keep.has(k)) {
        throw new PatchError(`the patch has a key ${JSON.stringify(k)} that is not in $retainKeys`, false);
      }
    }
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }

  const orders = new Map<string, unknown[]>();
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      if (!Array.isArray(v)) throw malformed(`${k} must be a list`);
      const current = out[field];
      if (Array.isArray(current)) out[field] = current.filter((x) => !v.some((d) => deepEqual(d, x)));
    } else if (k.startsWith(ORDER)) {
      if (!Array.isArray(v)) throw malformed(`${k} must be a list`);
      orders.set(k.slice(ORDER.length), v);
    }
  }

  for (const [k, v] of Object.entries(patch)) {
    if (isDirective(k) || v === undefined) continue;
    const childPath = join(path, k);
    if (v === null) {
      delete out[k];
    } else if (isObject(v)) {
      const merged = mergeMap(isObject(out[k]) ? (out[k] as JsonObject) : undefined, v, childPath, table);
      if (merged === DELETED) delete out[k];
      else out[k] = merged;
    } else if (Array.isArray(v)) {
      const strategy = table[childPath];
      const current = Array.isArray(out[k]) ? (out[k] as unknown[]) : [];
      out[k] = strategy ? mergeList(current, v, strategy, childPath, table, orders.get(k)) : clone(v);
    } else {
      out[k] = v;
    }
  }

  // An element order for a list the patch does not otherwise touch only reorders it.
  for (const [k, order] of orders) {
    const strategy = table[join(path, k)];
    if (strategy && !Object.hasOwn(patch, k) && Array.isArray(out[k])) {
      const list = out[k] as unknown[];
      out[k] = normalizeOrder(list, list, order, strategy);
    }
  }
  return out;
}

const keyOf = (item: unknown, strategy: ListStrategy): unknown =>
  strategy.mergeKey === undefined ? item : isObject(item) ? item[strategy.mergeKey] : undefined;

const indexIn = (list: readonly unknown[], key: unknown, strategy: ListStrategy): number =>
  list.findIndex((x) => deepEqual(keyOf(x, strategy), key));

function mergeList(
  orig: unknown[],
  patch: unknown[],
  strategy: ListStrategy,
  path: string,
  table: MergeKeyTable,
  order: unknown[] | undefined,
): unknown[] {
  if (strategy.mergeKey === undefined) {
    const merged: unknown[] = [];
    for (const x of [...orig, ...patch]) if (!merged.some((m) => deepEqual(m, x))) merged.push(clone(x));
    return order ? normalizeOrder(merged, orig, order, strategy) : merged;
  }
  const mergeKey = strategy.mergeKey;
  const plain: JsonObject[] = [];
  let merged = [...orig];
  for (const el of patch) {
    if (!isObject(el)) throw malformed(`${path}: a merge list element must be an object`);
    const directive = el[PATCH];
    if (directive === "replace") {
      // `{"$patch": "replace"}` in a list: the rest of the patch list is the new list.
      return patch.filter((x) => x !== el).map((x) => clone(x));
    }
    if (directive === "delete") {
      merged = merged.filter((x) => !deepEqual(keyOf(x, strategy), el[mergeKey]));
      continue;
    }
    if (!Object.hasOwn(el, mergeKey)) {
      throw new PatchError(
        `${path}: map ${JSON.stringify(el)} does not contain declared merge key: ${mergeKey}`,
        false,
      );
    }
    plain.push(el);
  }
  for (const el of plain) {
    const i = indexIn(merged, el[mergeKey], strategy);
    const current = i >= 0 && isObject(merged[i]) ? (merged[i] as JsonObject) : undefined;
    const result = mergeMap(current, el, path, table);
    if (result === DELETED) continue;
    if (i >= 0) merged[i] = result;
    else merged.push(result);
  }
  return normalizeOrder(merged, orig, order ?? plain, strategy);
}

/**
 * Puts the elements named by `order` first-class in that order and keeps the others (server-only) in their old
 * relative order, interleaving the two as described at the top of this file.
 */
function normalizeOrder(merged: unknown[], orig: unknown[], order: unknown[], strategy: ListStrategy): unknown[] {
  const orderKeys = order.map((x) => keyOf(x, strategy));
  const named: { item: unknown; rank: number }[] = [];
  const serverOnly: unknown[] = [];
  for (const item of merged) {
    const rank = orderKeys.findIndex((k) => deepEqual(k, keyOf(item, strategy)));
    if (rank >= 0) named.push({ item, rank });
    else serverOnly.push(item);
  }
  named.sort((a, b) => a.rank - b.rank);
  const oldIndex = (item: unknown): number => indexIn(orig, keyOf(item, strategy), strategy);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(named[j++]!.item);
    else {
      const a = oldIndex(serverOnly[i]);
      const b = oldIndex(named[j]!.item);
      if (a >= 0 && b >= 0 && a < b) out.push(serverOnly[i++]);
      else out.push(named[j++]!.item);
    }
  }
  return out;
}
