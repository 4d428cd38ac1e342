/**
 * `SandboxApi` over the simulated cloud's REST API, on `fetch`. Each call carries the bearer token, a timeout,
 * and the caller's abort signal; the error mapping is the one `client.ts` promises.
 */
import type { CallContext } from "../../cloud.ts";
import { RetryError } from "../../errors.ts";
import {
  type LoadBalancerSpec,
  type MachinePage,
  type SandboxApi,
  SandboxApiError,
  type SandboxLoadBalancer,
  type SandboxMachine,
  type SandboxRoute,
} from "./client.ts";

export interface HttpApiOptions {
  /** The cloud's base URL, e.g. `http://127.0.0.1:8081` (the API lives under `/v1`). */
  readonly url: string;
  readonly token: string;
  /** Per call, on top of the caller's signal. */
  readonly timeoutMs: number;
  /** Injected for tests that need a different transport; default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Milliseconds; used to read a Retry-After given as a date. Default `Date.now`. */
  readonly now?: () => number;
}

/** Used when a 429 carries no readable Retry-After. */
const defaultRetryAfterMs = 1000;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export class SandboxHttpApi implements SandboxApi {
  readonly #base: string;
  readonly #options: HttpApiOptions;
  readonly #fetch: typeof fetch;

  constructor(options: HttpApiOptions) {
    this.#base = `${options.url.replace(/\/+$/, "")}/v1`;
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
  }

  async listMachines(ctx: CallContext, query: { page: number; perPage: number; name?: string }): Promise<MachinePage> {
    const params = new URLSearchParams({ page: String(query.page), perPage: String(query.perPage) });
    if (query.name !== undefined) params.set("name", query.name);
    const body = await this.#call<{ machines: SandboxMachine[]; pagination: { nextPage: number | null } }>(
      ctx,
      "listMachines",
      "GET",
      `/machines?${params}`,
    );
    return { machines: body.machines, nextPage: body.pagination.nextPage };
  }

  async getMachine(ctx: CallContext, id: string): Promise<SandboxMachine | undefined> {
    const body = await this.#call<{ machine: SandboxMachine }>(ctx, "getMachine", "GET", `/machines/${enc(id)}`, {
      notFound: true,
    });
    return body?.machine;
  }

  async getLoadBalancer(ctx: CallContext, name: string): Promise<SandboxLoadBalancer | undefined> {
    const path = `/load-balancers/${enc(name)}`;
    const body = await this.#call<{ loadBalancer: SandboxLoadBalancer }>(ctx, "getLoadBalancer", "GET", path, {
      notFound: true,
    });
    return body?.loadBalancer;
  }

  async putLoadBalancer(ctx: CallContext, name: string, spec: LoadBalancerSpec): Promise<SandboxLoadBalancer> {
    const path = `/load-balancers/${enc(name)}`;
    const body = await this.#call<{ loadBalancer: SandboxLoadBalancer }>(ctx, "putLoadBalancer", "PUT", path, {
      body: spec,
    });
    return body.loadBalancer;
  }

  async setLoadBalancerNodes(ctx: CallContext, name: string, nodes: readonly string[]): Promise<SandboxLoadBalancer> {
    const path = `/load-balancers/${enc(name)}`;
    const body = await this.#call<{ loadBalancer: SandboxLoadBalancer }>(ctx, "setLoadBalancerNodes", "PATCH", path, {
      body: { nodes },
    });
    return body.loadBalancer;
  }

  async deleteLoadBalancer(ctx: CallContext, name: string): Promise<boolean> {
    const path = `/load-balancers/${enc(name)}`;
    return (await this.#call(ctx, "deleteLoadBalancer", "DELETE", path, { notFound: true })) !== undefined;
  }

  async listRoutes(ctx: CallContext, cluster: string): Promise<SandboxRoute[]> {
    const path = `/routes?${new URLSearchParams({ cluster })}`;
    return (await this.#call<{ routes: SandboxRoute[] }>(ctx, "listRoutes", "GET", path)).routes;
  }

  async createRoute(ctx: CallContext, route: SandboxRoute): Promise<SandboxRoute> {
    return (await this.#call<{ route: SandboxRoute }>(ctx, "createRoute", "POST", "/routes", { body: route })).route;
  }

  async deleteRoute(ctx: CallContext, name: string): Promise<boolean> {
    return (await this.#call(ctx, "deleteRoute", "DELETE", `/routes/${enc(name)}`, { notFound: true })) !== undefined;
  }

  /**
   * One call. Resolves to the parsed body (`{}` for 204), or `undefined` for a 404 when `notFound` allows it.
   * Every failure is thrown with the `sandbox/api.<op>: ` prefix.
   */
  #call<T>(
    ctx: CallContext,
    op: string,
    method: Method,
    path: string,
    opts: { body?: unknown; notFound: true },
  ): Promise<T | undefined>;
  #call<T>(ctx: CallContext, op: string, method: Method, path: string, opts?: { body?: unknown }): Promise<T>;
  async #call<T>(
    ctx: CallContext,
    op: string,
    method: Method,
    path: string,
    opts: { body?: unknown; notFound?: boolean } = {},
  ): Promise<T | undefined> {
    const prefix = `sandbox/api.${op}`;
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const url = `${this.#base}${path}`;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.#options.token}`,
          accept: "application/json",
          ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
        signal: AbortSignal.any([ctx.signal, timeout]),
      });
      if (response.ok) return (response.status === 204 ? {} : await response.json()) as T;
    } catch (err) {
      if (timeout.aborted && !ctx.signal.aborted) {
        throw new Error(`${prefix}: no answer within ${this.#options.timeoutMs}ms`, { cause: err });
      }
      throw new Error(`${prefix}: ${method} ${url}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    if (response.status === 404 && opts.notFound) {
      await response.body?.cancel();
      return undefined;
    }
    const apiError = await errorOf(response);
    if (response.status === 429) {
      const retryAfterMs = retryAfterOf(response.headers.get("retry-after"), this.#options.now ?? Date.now);
      const message = `${prefix}: the cloud is rate limiting (${apiError.message}); retry after ${retryAfterMs}ms`;
      throw new RetryError(message, retryAfterMs, { cause: apiError });
    }
    throw new Error(`${prefix}: ${apiError.message}`, { cause: apiError });
  }
}

async function errorOf(response: Response): Promise<SandboxApiError> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === "string" && typeof body.error.message === "string") {
      return new SandboxApiError(response.status, body.error.code, body.error.message);
    }
  } catch {
    // Not the cloud's JSON error (a proxy, a crash): report what came back instead.
  }
  return new SandboxApiError(response.status, response.statusText || "Error", text.slice(0, 200) || "(no body)");
}

/** Retry-After as seconds or an HTTP date, in milliseconds; the default when absent or unreadable. */
export function retryAfterOf(header: string | null, now: () => number): number {
  if (header === null || header.trim() === "") return defaultRetryAfterMs;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? defaultRetryAfterMs : Math.max(0, at - now());
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}
