/**
 * What the route modules share: the kit's endpoint shape on the project's world, JSON bodies checked by a valibot
 * schema (the kit answers a body that is not JSON with `json_error`, one that breaks the schema with `invalid_input`
 * naming every field: `hcloudEnvelope`), and answers.
 */
import * as v from "valibot";
import type { Call as KitCall, Endpoint as KitEndpoint } from "../../kit/router.ts";
import { json } from "../../kit/router.ts";
import { invalidInput } from "../errors.ts";
import type { Listed } from "../listing.ts";
import type { World } from "../state/world.ts";

export { json } from "../../kit/router.ts";

export type Call = KitCall<World>;
export type Endpoint = KitEndpoint<World>;

/** The body, parsed by `schema`. */
export function bodyOf<S extends v.GenericSchema>(call: Call, schema: S): Promise<v.InferOutput<S>> {
  return call.bodyOf(schema);
}

/** A path parameter that must be a resource ID. */
export function idParam(call: Call, name = "id"): number {
  const text = call.params[name] ?? "";
  if (!/^[1-9]\d{0,15}$/.test(text)) throw invalidInput({ [name]: [`'${text}' is not a resource ID`] });
  return Number(text);
}

/** A list answer: `{<key>: [...], meta: {pagination}}` and the `Link` header. */
export function listAnswer<T>(key: string, listed: Listed<T>, view: (item: T) => unknown): Response {
  const headers: Record<string, string> = listed.link === undefined ? {} : { link: listed.link };
  return json({ [key]: listed.items.map(view), meta: { pagination: listed.pagination } }, 200, headers);
}

// Shapes shared by several resources' bodies.
export const labelsSchema = v.record(v.string(), v.string());
export const nameSchema = v.pipe(
  v.string(),
  v.nonEmpty("must not be empty"),
  v.maxLength(128, "must be at most 128 characters"),
);
export const idOrName = v.union(
  [v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.nonEmpty())],
  "must be an ID or a name",
);
export const resourceId = v.pipe(v.number(), v.integer(), v.minValue(1));
export const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
