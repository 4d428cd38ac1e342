/**
 * The simulated cloud's REST API as a fetch handler (`Request → Response`), documented in docs/sandbox.md.
 *
 * Every call is counted and must carry the bearer token. Calls to resources (machines, load balancers, routes)
 * go through fault injection; the control endpoints (`/v1/faults`, `/v1/settings`, `/v1/calls…`) never fail and
 * are not counted, so a test can always reach them.
 */
import type { ConsolaInstance } from "consola";
import type { CallCounter } from "./calls.ts";
import type { Faults } from "./faults.ts";
import { CloudError, type CloudState } from "./state.ts";
import type { ErrorBody } from "./types.ts";
import {
  faultsSchema,
  intParam,
  loadBalancerPatchSchema,
  loadBalancerSpecSchema,
  machinePatchSchema,
  machineSpecSchema,
  parseBody,
  routeSchema,
  settingsSchema,
} from "./validate.ts";

export interface CloudApiDeps {
  readonly state: CloudState;
  readonly faults: Faults;
  readonly calls: CallCounter;
  readonly token: string;
  readonly sleep: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch, for the write log; default `Date.now`. */
  readonly now?: () => number;
  readonly logger?: ConsolaInstance | undefined;
}

interface Call {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: () => Promise<unknown>;
}

interface Endpoint {
  readonly method: string;
  readonly route: string;
  /** Control endpoints skip fault injection and call counting. */
  readonly control?: boolean;
  readonly handle: (call: Call) => Response | Promise<Response>;
}

export function createCloudHandler(deps: CloudApiDeps): (request: Request) => Promise<Response> {
  const endpoints = endpointsOf(deps);
  const expected = `Bearer ${deps.token}`;
  return async (request) => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const found = route(endpoints, method, url.pathname);
    const countAs = found.endpoint?.control ? undefined : (found.endpoint?.route ?? "(unmatched)");
    const now = deps.now ?? Date.now;
    const receivedAt = now();
    const response = await answer(async () => {
      if (request.headers.get("authorization") !== expected) {
        throw new CloudError(401, "Unauthorized", "missing or wrong bearer token");
      }
      if (!found.endpoint) {
        if (found.allowed.length === 0) throw new CloudError(404, "NotFound", `no route for ${url.pathname}`);
        throw new CloudError(405, "MethodNotAllowed", `${method} not allowed; use ${found.allowed.join(", ")}`);
      }
      if (!found.endpoint.control) await injectFaults(deps, method, url.pathname);
      const body = async () => readJSON(request);
      return found.endpoint.handle({ params: found.params, query: url.searchParams, body });
    });
    if (countAs !== undefined) deps.calls.record(method, countAs, response.status);
    if (countAs !== undefined && method !== "GET" && method !== "HEAD") {
      const userAgent = request.headers.get("user-agent") ?? "";
      const status = response.status;
      deps.calls.recordWrite({ method, path: url.pathname, status, userAgent, receivedAt, answeredAt: now() });
    }
    deps.logger?.debug(`${method} ${url.pathname}${url.search} → ${response.status}`);
    return response;
  };
}

async function injectFaults(deps: CloudApiDeps, method: string, path: string): Promise<void> {
  if (deps.faults.latencyMs > 0) await deps.sleep(deps.faults.latencyMs);
  const failure = deps.faults.check(method, path);
  if (!failure) return;
  throw new CloudError(failure.status, failure.code, failure.message, failure.retryAfterSeconds);
}

function endpointsOf({ state, faults, calls }: CloudApiDeps): Endpoint[] {
  const m = "/v1/machines/:id";
  const lb = "/v1/load-balancers/:name";
  const rt = "/v1/routes/:name";
  return [
    {
      method: "GET",
      route: "/v1/machines",
      handle: ({ query }) => {
        const page = intParam(query, "page", 1, Number.MAX_SAFE_INTEGER);
        const perPage = intParam(query, "perPage", 50, 1000);
        return json(200, state.listMachines({ page, perPage, ...optional("name", query.get("name")) }));
      },
    },
    {
      method: "POST",
      route: "/v1/machines",
      handle: async ({ body }) =>
        json(201, { machine: state.createMachine(parseBody(machineSpecSchema, await body())) }),
    },
    {
      method: "GET",
      route: m,
      handle: ({ params }) => json(200, { machine: must(state.getMachine(params.id!), "machine", params.id!) }),
    },
    {
      method: "PATCH",
      route: m,
      handle: async ({ params, body }) =>
        json(200, { machine: state.updateMachine(params.id!, parseBody(machinePatchSchema, await body())) }),
    },
    {
      method: "DELETE",
      route: m,
      handle: ({ params }) => {
        state.deleteMachine(params.id!);
        return empty();
      },
    },
    {
      method: "GET",
      route: "/v1/load-balancers",
      handle: ({ query }) =>
        json(200, { loadBalancers: state.listLoadBalancers(optional("cluster", query.get("cluster"))) }),
    },
    {
      method: "GET",
      route: lb,
      handle: ({ params }) =>
        json(200, { loadBalancer: must(state.getLoadBalancer(params.name!), "load balancer", params.name!) }),
    },
    {
      method: "PUT",
      route: lb,
      handle: async ({ params, body }) => {
        const put = state.putLoadBalancer(params.name!, parseBody(loadBalancerSpecSchema, await body()));
        return json(put.created ? 201 : 200, { loadBalancer: put.loadBalancer });
      },
    },
    {
      method: "PATCH",
      route: lb,
      handle: async ({ params, body }) =>
        json(200, {
          loadBalancer: state.patchLoadBalancer(params.name!, parseBody(loadBalancerPatchSchema, await body())),
        }),
    },
    {
      method: "DELETE",
      route: lb,
      handle: ({ params }) => {
        state.deleteLoadBalancer(params.name!);
        return empty();
      },
    },
    {
      method: "GET",
      route: "/v1/routes",
      handle: ({ query }) => json(200, { routes: state.listRoutes(optional("cluster", query.get("cluster"))) }),
    },
    {
      method: "POST",
      route: "/v1/routes",
      handle: async ({ body }) => {
        const put = state.createRoute(parseBody(routeSchema, await body()));
        return json(put.created ? 201 : 200, { route: put.route });
      },
    },
    {
      method: "GET",
      route: rt,
      handle: ({ params }) => json(200, { route: must(state.getRoute(params.name!), "route", params.name!) }),
    },
    {
      method: "DELETE",
      route: rt,
      handle: ({ params }) => {
        state.deleteRoute(params.name!);
        return empty();
      },
    },
    { method: "GET", route: "/v1/faults", control: true, handle: () => json(200, { faults: faults.get() }) },
    {
      method: "PUT",
      route: "/v1/faults",
      control: true,
      handle: async ({ body }) => json(200, { faults: faults.set(parseBody(faultsSchema, await body())) }),
    },
    { method: "GET", route: "/v1/settings", control: true, handle: () => json(200, { settings: state.settings() }) },
    {
      method: "PUT",
      route: "/v1/settings",
      control: true,
      handle: async ({ body }) => json(200, { settings: state.setSettings(parseBody(settingsSchema, await body())) }),
    },
    { method: "GET", route: "/v1/calls", control: true, handle: () => json(200, { calls: calls.snapshot() }) },
    { method: "GET", route: "/v1/calls/writes", control: true, handle: () => json(200, { writes: calls.writes() }) },
    {
      method: "DELETE",
      route: "/v1/calls",
      control: true,
      handle: () => {
        calls.reset();
        return empty();
      },
    },
  ];
}

function route(
  endpoints: readonly Endpoint[],
  method: string,
  path: string,
): { endpoint?: Endpoint; params: Record<string, string>; allowed: string[] } {
  const allowed: string[] = [];
  for (const endpoint of endpoints) {
    const params = matchPattern(endpoint.route, path);
    if (!params) continue;
    if (endpoint.method === method) return { endpoint, params, allowed };
    allowed.push(endpoint.method);
  }
  return { params: {}, allowed };
}

/** Captures for `:name` segments, or undefined when `path` does not fit `pattern`. */
function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.replace(/\/$/, "").split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? "";
    if (segment.startsWith(":")) {
      if (actual === "") return undefined;
      params[segment.slice(1)] = decodeURIComponent(actual);
    } else if (segment !== actual) return undefined;
  }
  return params;
}

async function answer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof CloudError)) {
      return json(500, errorBody("InternalError", err instanceof Error ? err.message : String(err)));
    }
    const headers: Record<string, string> = {};
    if (err.retryAfterSeconds !== undefined) headers["retry-after"] = String(err.retryAfterSeconds);
    if (err.status === 401) headers["www-authenticate"] = "Bearer";
    return json(err.status, errorBody(err.code, err.message), headers);
  }
}

async function readJSON(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new CloudError(400, "InvalidJSON", "the request body is not valid JSON");
  }
}

function must<T>(value: T | undefined, kind: string, id: string): T {
  if (value === undefined) throw new CloudError(404, "NotFound", `${kind} "${id}" not found`);
  return value;
}

function optional<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return (value === null ? {} : { [key]: value }) as Partial<Record<K, string>>;
}

function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}

function empty(): Response {
  return new Response(null, { status: 204 });
}
