/**
 * The fetch handler every cloud API emulator is: the cloud's API under its prefix (`/v1`), the emulator's control
 * API under `/_emulator`. An API call, in order: authentication, a token from the rate-limit bucket when the cloud
 * has one, injected latency and faults, then the endpoint. Every answer to an authenticated API call (and to a
 * refused one, when the cloud counts those: `countRefused`) is counted by its route pattern (`GET /v1/servers/:id`),
 * and every write is logged with who sent it and when.
 *
 * What differs from cloud to cloud is the error envelope: the emulator hands its own (`Envelope`), which the kit
 * uses for its refusals (no such path, wrong method, bad JSON, bad body, a crash) and for what routes throw.
 */
import type { ConsolaInstance } from "consola";
import * as v from "valibot";
import type { CallCounter } from "../cloud/calls.ts";
import { type Call, type Endpoint, match } from "./router.ts";

export const CONTROL_PREFIX = "/_emulator";

/** A cloud's errors: the class its state and routes throw, and the ones the kit needs made. */
export interface Envelope<E> {
  /** Whether `err` is the cloud's own error, answered as it is. */
  readonly owns: (err: unknown) => err is E;
  readonly answer: (err: E) => Response;
  readonly unauthorized: () => E;
  readonly noSuchPath: (path: string) => E;
  readonly methodNotAllowed: (method: string, path: string, allowed: readonly string[]) => E;
  readonly rateLimited: () => E;
  readonly notJson: () => E;
  readonly invalid: (issues: readonly v.BaseIssue<unknown>[]) => E;
  readonly serverError: (message: string) => E;
  /** Last touch on every answer of this request (DigitalOcean's `x-request-id`). */
  readonly finish?: (response: Response) => Response;
}

export interface Limiter {
  take(): { readonly allowed: boolean; readonly headers: Readonly<Record<string, string>> };
}

export interface ApiHandlerOptions<W, E> {
  /** For log lines: `hcloud emulator`. */
  readonly name: string;
  /** `/v1`: API paths start with it; the endpoints' routes come after it. */
  readonly apiPrefix: string;
  readonly world: W;
  readonly endpoints: readonly Endpoint<W>[];
  /** Under `/_emulator`: never faulted, rate limited or counted, but authenticated like the API. */
  readonly control: readonly Endpoint<W>[];
  /** The cloud's envelope for one request (a function, so an envelope may carry a request ID). */
  readonly envelope: (request: Request) => Envelope<E>;
  readonly authenticated: (request: Request) => boolean;
  /** Count a refused API call by its route like any other answer (OpenStack's 401 comes from each service). */
  readonly countRefused?: boolean | undefined;
  readonly faults: { readonly latencyMs: number; check(method: string, path: string): E | undefined };
  /** The cloud's rate limit, when it has one the emulator models; its headers go on every API answer. */
  readonly limiter?: Limiter | undefined;
  readonly calls: CallCounter;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly logger?: ConsolaInstance | undefined;
}

export function createApiHandler<W, E>(o: ApiHandlerOptions<W, E>): (request: Request) => Promise<Response> {
  return async (request) => {
    const envelope = o.envelope(request);
    const finish = envelope.finish ?? ((r: Response) => r);
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const refused = !o.authenticated(request);
    const control = url.pathname.startsWith(`${CONTROL_PREFIX}/`);
    if (refused && (control || !o.countRefused)) return finish(envelope.answer(envelope.unauthorized()));
    if (control) {
      return finish(
        await serve(o, envelope, o.control, method, url.pathname.slice(CONTROL_PREFIX.length), url, request),
      );
    }
    const receivedAt = o.now();
    const limit = (!refused && o.limiter?.take()) || { allowed: true, headers: {} };
    let response: Response;
    let route = "(unmatched)";
    const path = url.pathname.startsWith(`${o.apiPrefix}/`) ? url.pathname.slice(o.apiPrefix.length) : undefined;
    const found = path === undefined ? undefined : match(o.endpoints, method, path);
    if (found?.endpoint) route = `${o.apiPrefix}${found.endpoint.route}`;
    if (refused) {
      response = envelope.answer(envelope.unauthorized());
    } else if (!limit.allowed) {
      response = envelope.answer(envelope.rateLimited());
    } else {
      if (o.faults.latencyMs > 0) await o.sleep(o.faults.latencyMs);
      const fault = path === undefined ? undefined : o.faults.check(method, path);
      response = fault ? envelope.answer(fault) : await serve(o, envelope, o.endpoints, method, path, url, request);
    }
    for (const [name, value] of Object.entries(limit.headers)) response.headers.set(name, value);
    o.calls.record(method, route, response.status);
    if (method !== "GET" && method !== "HEAD") {
      o.calls.recordWrite({
        method,
        path: url.pathname,
        status: response.status,
        userAgent: request.headers.get("user-agent") ?? "",
        receivedAt,
        answeredAt: o.now(),
      });
    }
    o.logger?.debug(`${method} ${url.pathname}${url.search} → ${response.status}`);
    return finish(response);
  };
}

/** Routes and runs one call; the cloud's own errors become its envelope, anything else a server error. */
async function serve<W, E>(
  o: ApiHandlerOptions<W, E>,
  envelope: Envelope<E>,
  endpoints: readonly Endpoint<W>[],
  method: string,
  path: string | undefined,
  url: URL,
  request: Request,
): Promise<Response> {
  try {
    const found = path === undefined ? undefined : match(endpoints, method, path);
    if (!found?.endpoint) {
      if (found && found.allowed.length > 0) throw envelope.methodNotAllowed(method, url.pathname, found.allowed);
      throw envelope.noSuchPath(url.pathname);
    }
    let body: Promise<unknown> | undefined;
    const readBody = () => {
      body ??= readJson(request, envelope);
      return body;
    };
    const call: Call<W> = {
      params: found.params,
      url,
      request,
      world: o.world,
      body: readBody,
      bodyOf: async (schema) => {
        const result = v.safeParse(schema, await readBody(), { abortEarly: false });
        if (!result.success) throw envelope.invalid(result.issues);
        return result.output;
      },
    };
    return await found.endpoint.handle(call);
  } catch (err) {
    if (envelope.owns(err)) return envelope.answer(err);
    o.logger?.error(`${o.name}: ${method} ${url.pathname} failed`, err);
    return envelope.answer(envelope.serverError(err instanceof Error ? err.message : String(err)));
  }
}

async function readJson<E>(request: Request, envelope: Envelope<E>): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw envelope.notJson();
  }
}
