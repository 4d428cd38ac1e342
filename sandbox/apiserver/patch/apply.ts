/**
 * One entry point for the three patch media types, with their failures as the API errors the real server
 * answers: 400 for a patch that is not a patch, 422 for one that cannot apply (a failed `test`, a missing path).
 */
import { clone, isObject, type Obj } from "../json.ts";
import { ApiError, badRequest } from "../status-errors.ts";
import { applyJsonPatch, applyMergePatch, PatchError } from "./json-patch.ts";
import { mergeKeysFor } from "./merge-keys.ts";
import { applyStrategicMergePatch } from "./strategic.ts";

export type PatchType = "json" | "merge" | "strategic";

/** `target` (not modified) patched, as a new object the caller owns. `kind` selects the strategic merge keys. */
export const applyPatch = (target: Obj, kind: string, type: PatchType, patch: unknown): Obj => {
  let patched: unknown;
  try {
    if (type === "json") patched = applyJsonPatch(target, patch);
    else if (type === "merge") patched = applyMergePatch(target, patch);
    else patched = applyStrategicMergePatch(target, patch, mergeKeysFor(kind));
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    if (err.malformed) throw badRequest(err.message);
    throw new ApiError(422, "Invalid", err.message, {
      causes: [{ reason: "FieldValueInvalid", message: err.message, field: "patch" }],
    });
  }
  if (!isObject(patched)) throw badRequest("the patch must leave an object");
  // Merge results share unchanged subtrees with `target`; the write path mutates what it owns.
  return clone(patched) as Obj;
};
