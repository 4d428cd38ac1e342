/**
 * The emulator's fetch handler. DigitalOcean's API lives under `/v2`, the control API under `/_emulator`.
 *
 * An API call, in order: the bearer token (401 `unauthorized`), one request from the hourly budget (429
 * `too_many_requests`), injected latency and faults, then the endpoint. Every answer to an authenticated API call
 * carries the `ratelimit-*` headers and an `x-request-id` (the error envelope's `request_id`), and is counted by
 * its route pattern (`GET /v2/droplets/:id`).
 *
 * Beside them, unauthenticated as on a Droplet, the metadata service's `GET /metadata/v1/region` (a Droplet asks
 * `http://169.254.169.254/metadata/v1/region`): the region as plain text, or 404 when none is set.
 */
import type { ConsolaInstance } from "consola";
import { type ControlDeps, controlEndpoints } from "./control.ts";
import { DoError } from "./errors.ts";
import { certificateEndpoints } from "./routes/certificates.ts";
import { dropletEndpoints } from "./routes/droplets.ts";
import { type Endpoint, json, readJson } from "./routes/endpoint.ts";
import { firewallEndpoints } from "./routes/firewalls.ts";
import { loadBalancerEndpoints } from "./routes/load-balancers.ts";
import { tagEndpoints } from "./routes/tags.ts";

export const API_PREFIX = "/v2";
export const CONTROL_PREFIX = "/_emulator";

export interface DoApiDeps extends ControlDeps {
  readonly token: string;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly logger?: ConsolaInstance | undefined;
  /** What `/metadata/v1/region` answers; `undefined` ⇒ 404. */
  readonly metadataRegion?: string | undefined;
}

export const METADATA_REGION_PATH = "/metadata/v1/region";

const apiEndpoints: readonly Endpoint[] = [
  ...dropletEndpoints,
  ...loadBalancerEndpoints,
  ...certificateEndpoints,
  ...tagEndpoints,
  ...firewallEndpoints,
];

export function createDoHandler(deps: DoApiDeps): (request: Request) => Promise<Response> {
  const control = controlEndpoints(deps);
  return async (request) => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    if (url.pathname === METADATA_REGION_PATH && method === "GET") {
      return deps.metadataRegion
        ? new Response(deps.metadataRegion, { headers: { "content-type": "text/plain" } })
        : new Response("not found", { status: 404 });
    }
    const requestId = deps.world.uuid();
    if (request.headers.get("authorization") !== `Bearer ${deps.token}`) {
      const e = new DoError("unauthorized", "Unable to authenticate you");
      return withId(json(e.body(requestId), e.status), requestId);
    }
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      return serve(deps, control, method, url.pathname.slice(CONTROL_PREFIX.length), url, request, requestId);
    }
    const receivedAt = deps.now();
    const limit = deps.bucket.take();
    let response: Response;
    let route = "(unmatched)";
    if (!limit.allowed) {
      const e = new DoError("too_many_requests", "API Rate limit exceeded.");
      response = json(e.body(requestId), e.status);
    } else {
      if (deps.faults.latencyMs > 0) await deps.sleep(deps.faults.latencyMs);
      const path = url.pathname.startsWith(`${API_PREFIX}/`) ? url.pathname.slice(API_PREFIX.length) : undefined;
      const found = path === undefined ? undefined : match(apiEndpoints, method, path);
      if (found?.endpoint) route = `${API_PREFIX}${found.endpoint.route}`;
      const fault = path === undefined ? undefined : deps.faults.check(method, path);
      response = fault
        ? json(fault.body(requestId), fault.status)
        : await serve(deps, apiEndpoints, method, path, url, request, requestId);
    }
    for (const [name, value] of Object.entries(limit.headers)) response.headers.set(name, value);
    deps.calls.record(method, route, response.status);
    if (method !== "GET" && method !== "HEAD") {
      const userAgent = request.headers.get("user-agent") ?? "";
      deps.calls.recordWrite({
        method,
        path: url.pathname,
        status: response.status,
        userAgent,
        receivedAt,
        answeredAt: deps.now(),
      });
    }
    deps.logger?.debug(`${method} ${url.pathname}${url.search} → ${response.status}`);
    return withId(response, requestId);
  };
}

function withId(response: Response, requestId: string): Response {
  response.headers.set("x-request-id", requestId);
  return response;
}

/** Routes and runs one call; every thrown `DoError` becomes its envelope, anything else `server_error`. */
async function serve(
  deps: DoApiDeps,
  endpoints: readonly Endpoint[],
  method: string,
  path: string | undefined,
  url: URL,
  request: Request,
  requestId: string,
): Promise<Response> {
  try {
    const found = path === undefined ? undefined : match(endpoints, method, path);
    if (!found?.endpoint) {
      if (found && found.allowed.length > 0) {
        throw new DoError(
          "method_not_allowed",
          `${method} is not allowed on ${url.pathname}; use ${found.allowed.join(", ")}`,
        );
      }
      throw new DoError("not_found", `no such endpoint: ${url.pathname}`);
    }
    return await found.endpoint.handle({ params: found.params, url, world: deps.world, body: () => readJson(request) });
  } catch (err) {
    if (err instanceof DoError) return json(err.body(requestId), err.status);
    deps.logger?.error(`digitalocean emulator: ${method} ${url.pathname} failed`, err);
    const e = new DoError("server_error", err instanceof Error ? err.message : String(err));
    return json(e.body(requestId), e.status);
  }
}

function match(
  endpoints: readonly Endpoint[],
  method: string,
  path: string,
): { endpoint?: Endpoint; params: Record<string, string>; allowed: string[] } {
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
