/**
 * What the route modules share: the endpoint shape, JSON bodies checked by a valibot schema (a body that is not
 * JSON is `json_error`; a body that breaks the schema is `invalid_input` naming every field), and answers.
 */
import * as v from "valibot";
import { HcloudError, invalidFromIssues, invalidInput } from "../errors.ts";
import type { Listed } from "../listing.ts";
import type { World } from "../state/world.ts";

export interface Call {
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  readonly world: World;
  readonly body: () => Promise<unknown>;
}

export interface Endpoint {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under `/v1`, with `:name` segments: `/load_balancers/:id`. */
  readonly route: string;
  readonly handle: (call: Call) => Response | Promise<Response>;
}

/** The body, parsed by `schema`. */
export async function bodyOf<S extends v.GenericSchema>(call: Call, schema: S): Promise<v.InferOutput<S>> {
  const result = v.safeParse(schema, await call.body(), { abortEarly: false });
  if (!result.success) throw invalidFromIssues(result.issues);
  return result.output;
}

/** A path parameter that must be a resource ID. */
export function idParam(call: Call, name = "id"): number {
  const text = call.params[name] ?? "";
  if (!/^[1-9]\d{0,15}$/.test(text)) throw invalidInput({ [name]: [`'${text}' is not a resource ID`] });
  return Number(text);
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

/** A list answer: `{<key>: [...], meta: {pagination}}` and the `Link` header. */
export function listAnswer<T>(key: string, listed: Listed<T>, view: (item: T) => unknown): Response {
  const headers: Record<string, string> = listed.link === undefined ? {} : { link: listed.link };
  return json({ [key]: listed.items.map(view), meta: { pagination: listed.pagination } }, 200, headers);
}

export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HcloudError("json_error", "the request body is not valid JSON");
  }
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
