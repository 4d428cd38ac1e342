/**
 * The emulator's fetch handler. Hetzner's API lives under `/v1`, the control API under `/_emulator`.
 *
 * An API call, in order: the bearer token (401 `unauthorized`), a token from the rate-limit bucket (429
 * `rate_limit_exceeded`), injected latency and faults, then the endpoint. Every answer to an authenticated API
 * call carries the `RateLimit-*` headers, and is counted by its route pattern (`GET /v1/servers/:id`).
 */
import type { ConsolaInstance } from "consola";
import type { CallCounter } from "../cloud/calls.ts";
import { type ControlDeps, controlEndpoints } from "./control.ts";
import { HcloudError } from "./errors.ts";
import type { Faults } from "./faults.ts";
import type { RateLimitBucket } from "./rate-limit.ts";
import { actionEndpoints } from "./routes/actions.ts";
import { catalogEndpoints } from "./routes/catalog.ts";
import { certificateEndpoints } from "./routes/certificates.ts";
import { type Endpoint, json, readJson } from "./routes/endpoint.ts";
import { loadBalancerEndpoints } from "./routes/load-balancers.ts";
import { networkEndpoints } from "./routes/networks.ts";
import { serverEndpoints } from "./routes/servers.ts";
import type { World } from "./state/world.ts";

export const API_PREFIX = "/v1";
export const CONTROL_PREFIX = "/_emulator";

export interface HcloudApiDeps extends ControlDeps {
  readonly world: World;
  readonly faults: Faults;
  readonly bucket: RateLimitBucket;
  readonly calls: CallCounter;
  readonly token: string;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly logger?: ConsolaInstance | undefined;
}

const apiEndpoints: readonly Endpoint[] = [
  ...serverEndpoints,
  ...loadBalancerEndpoints,
  ...networkEndpoints,
  ...certificateEndpoints,
  ...actionEndpoints,
  ...catalogEndpoints,
];

export function createHcloudHandler(deps: HcloudApiDeps): (request: Request) => Promise<Response> {
  const control = controlEndpoints(deps);
  return async (request) => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    if (request.headers.get("authorization") !== `Bearer ${deps.token}`) {
      const e = new HcloudError("unauthorized", "unable to authenticate: missing or wrong bearer token");
      return json(e.body(), e.status);
    }
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      return serve(deps, control, method, url.pathname.slice(CONTROL_PREFIX.length), url, request);
    }
    const receivedAt = deps.now();
    const limit = deps.bucket.take();
    let response: Response;
    let route = "(unmatched)";
    if (!limit.allowed) {
      const e = new HcloudError("rate_limit_exceeded", "limit of requests per hour reached");
      response = json(e.body(), e.status);
    } else {
      if (deps.faults.latencyMs > 0) await deps.sleep(deps.faults.latencyMs);
      const path = url.pathname.startsWith(`${API_PREFIX}/`) ? url.pathname.slice(API_PREFIX.length) : undefined;
      const found = path === undefined ? undefined : match(apiEndpoints, method, path);
      if (found?.endpoint) route = `${API_PREFIX}${found.endpoint.route}`;
      const fault = path === undefined ? undefined : deps.faults.check(method, path);
      response = fault ? json(fault.body(), fault.status) : await serve(deps, apiEndpoints, method, path, url, request);
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
    return response;
  };
}

/** Routes and runs one call; every thrown `HcloudError` becomes its envelope, anything else `server_error`. */
async function serve(
  deps: HcloudApiDeps,
  endpoints: readonly Endpoint[],
  method: string,
  path: string | undefined,
  url: URL,
  request: Request,
): Promise<Response> {
  try {
    const found = path === undefined ? undefined : match(endpoints, method, path);
    if (!found?.endpoint) {
      if (found && found.allowed.length > 0) {
        throw new HcloudError(
          "method_not_allowed",
          `${method} is not allowed on ${url.pathname}; use ${found.allowed.join(", ")}`,
        );
      }
      throw new HcloudError("not_found", `no such endpoint: ${url.pathname}`);
    }
    return await found.endpoint.handle({ params: found.params, url, world: deps.world, body: () => readJson(request) });
  } catch (err) {
    if (err instanceof HcloudError) return json(err.body(), err.status);
    deps.logger?.error(`hcloud emulator: ${method} ${url.pathname} failed`, err);
    const e = new HcloudError("server_error", err instanceof Error ? err.message : String(err));
    return json(e.body(), e.status);
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
