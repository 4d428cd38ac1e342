/**
 * What the route modules share: the endpoint shape, JSON bodies checked by a valibot schema (a body that is not
 * JSON is `bad_request`; a body that breaks the schema is `unprocessable_entity` naming every field), and answers.
 */
import * as v from "valibot";
import { DoError, invalidFromIssues } from "../errors.ts";
import type { World } from "../state/world.ts";

export interface Call {
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  readonly world: World;
  readonly body: () => Promise<unknown>;
}

export interface Endpoint {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under `/v2`, with `:name` segments: `/load_balancers/:id`. */
  readonly route: string;
  readonly handle: (call: Call) => Response | Promise<Response>;
}

/** The body, parsed by `schema`. */
export async function bodyOf<S extends v.GenericSchema>(call: Call, schema: S): Promise<v.InferOutput<S>> {
  const result = v.safeParse(schema, await call.body(), { abortEarly: false });
  if (!result.success) throw invalidFromIssues(result.issues);
  return result.output;
}

export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new DoError("bad_request", "the request body is not valid JSON");
  }
}

export const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
export const dropletId = v.pipe(v.number(), v.integer(), v.minValue(1));
/** The API's tag name pattern. */
export const tagName = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9_\-:]+$/, "must be letters, digits, '_', '-' or ':'"),
  v.maxLength(255),
);
