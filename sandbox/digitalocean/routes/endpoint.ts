/**
 * What the route modules share: the kit's endpoint shape on the account's world, JSON bodies checked by a valibot
 * schema (the kit answers a body that is not JSON with `bad_request`, one that breaks the schema with
 * `unprocessable_entity` naming every field: `doEnvelope`), and answers.
 */
import * as v from "valibot";
import type { Call as KitCall, Endpoint as KitEndpoint } from "../../kit/router.ts";
import type { World } from "../state/world.ts";

export { json, noContent } from "../../kit/router.ts";

export type Call = KitCall<World>;
export type Endpoint = KitEndpoint<World>;

/** The body, parsed by `schema`. */
export function bodyOf<S extends v.GenericSchema>(call: Call, schema: S): Promise<v.InferOutput<S>> {
  return call.bodyOf(schema);
}

export const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
export const dropletId = v.pipe(v.number(), v.integer(), v.minValue(1));
/** The API's tag name pattern. */
export const tagName = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9_\-:]+$/, "must be letters, digits, '_', '-' or ':'"),
  v.maxLength(255),
);
