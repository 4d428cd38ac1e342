/**
 * Routing for the cloud API emulators: endpoints declared as `{method, route, handle}` with `:name` segments, a
 * matcher that tells "no such path" from "not this method", and the call a handler gets. The call parses its own
 * body (`call.bodyOf(schema)`), so a bad body is the emulator's own error envelope, whatever the cloud.
 */
import type * as v from "valibot";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Call<W> {
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  /** The request itself, for what a cloud reads from its headers (OpenStack's microversion). */
  readonly request: Request;
  readonly world: W;
  /** The raw JSON body (`{}` when empty); a body that is not JSON throws the emulator's error for it. */
  readonly body: () => Promise<unknown>;
  /** The body parsed by `schema`; issues throw the emulator's error naming every field. */
  readonly bodyOf: <S extends v.GenericSchema>(schema: S) => Promise<v.InferOutput<S>>;
}

export interface Endpoint<W> {
  readonly method: HttpMethod;
  /** Under the API's prefix, with `:name` segments: `/servers/:id`. */
  readonly route: string;
  readonly handle: (call: Call<W>) => Response | Promise<Response>;
}

export interface Match<W> {
  readonly endpoint?: Endpoint<W>;
  readonly params: Record<string, string>;
  /** The methods the path takes, when it matched a route but not the method. */
  readonly allowed: string[];
}

/** The endpoint for `method` on `path` (a trailing slash is ignored); parameters are URL-decoded. */
export function match<W>(endpoints: readonly Endpoint<W>[], method: string, path: string): Match<W> {
  const allowed: string[] = [];
  const got = path.replace(/\/$/, "").split("/");
  for (const endpoint of endpoints) {
    const want = endpoint.route.split("/");
    if (want.length !== got.length) continue;
    const params: Record<string, string> = {};
    const fits = want.every((segment, i) => {
      const actual = got[i] ?? "";
      if (!segment.startsWith(":")) return segment === actual;
      params[segment.slice(1)] = decodeURIComponent(actual);
      return actual !== "";
    });
    if (!fits) continue;
    if (endpoint.method === method) return { endpoint, params, allowed };
    allowed.push(endpoint.method);
  }
  return { params: {}, allowed };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}
