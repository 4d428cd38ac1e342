/**
 * What the route modules share: the kit's endpoint on the organisation's world, and the path checks Scaleway's
 * API makes: a zone or region the product is in, a resource ID that is a UUID.
 */
import type { Call as KitCall, Endpoint as KitEndpoint } from "../../kit/router.ts";
import { invalidArguments } from "../errors.ts";
import type { World } from "../state/world.ts";

export type Call = KitCall<World>;
export type Endpoint = KitEndpoint<World>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The path's `:zone` (or `:region`), which must be one the product is offered in. */
export function locality(call: Call, name: "zone" | "region", allowed: readonly string[]): string {
  const value = call.params[name] ?? "";
  if (!allowed.includes(value)) {
    throw invalidArguments({ [name]: `'${value}' is not one of ${allowed.join(", ")}` });
  }
  return value;
}

/** A path parameter that must be a UUID. */
export function uuidParam(call: Call, name: string): string {
  const value = call.params[name] ?? "";
  if (!UUID.test(value)) throw invalidArguments({ [name]: `'${value}' is not a UUID` });
  return value;
}

/** Items whose name contains `name=` (the Instance and Elastic Metal APIs match part of the name). */
export function nameContains(q: URLSearchParams, name: string): boolean {
  const want = q.get("name");
  return want === null || name.includes(want);
}

/** Items carrying every tag of `tags=` (comma separated or repeated). */
export function hasTags(q: URLSearchParams, tags: readonly string[]): boolean {
  const want = q
    .getAll("tags")
    .flatMap((t) => t.split(","))
    .filter((t) => t !== "");
  return want.every((t) => tags.includes(t));
}
