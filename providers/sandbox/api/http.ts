/**
 * `SandboxApi` over the simulated cloud's REST API, on the cloud-API kit (providers/kit/http): the bearer token, a
 * timeout per attempt, retries, the provider's declared rate limit, schemas for every body and answer (schemas.ts),
 * and the `cloudprovider_sandbox_api_*` metrics. The error mapping is the one `client.ts` promises.
 */
import type { CallContext } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning } from "../../kit/http/client.ts";
import type {
  LoadBalancerSpec,
  MachinePage,
  SandboxApi,
  SandboxLoadBalancer,
  SandboxMachine,
  SandboxRoute,
} from "./client.ts";
import {
  loadBalancerAnswer,
  loadBalancerNodesBody,
  loadBalancerSpecBody,
  machineAnswer,
  machinePageAnswer,
  noContent,
  routeAnswer,
  routeBody,
  routesAnswer,
} from "./schemas.ts";

export interface HttpApiOptions extends CloudApiClientTuning {
  /** The cloud's base URL, e.g. `http://127.0.0.1:8081` (the API lives under `/v1`). */
  readonly url: string;
  readonly token: string;
  /** Per attempt, on top of the caller's signal. */
  readonly timeoutMs: number;
  /** Sent as `User-Agent` on every call; default `fetch`'s own. */
  readonly userAgent?: string;
}

export class SandboxHttpApi implements SandboxApi {
  readonly #client: CloudApiClient;

  constructor({ url, token, ...options }: HttpApiOptions) {
    this.#client = new CloudApiClient({
      ...options,
      name: "sandbox/api",
      provider: "sandbox",
      baseUrl: `${url.replace(/\/+$/, "")}/v1`,
      auth: () => ({ authorization: `Bearer ${token}` }),
    });
  }

  async listMachines(ctx: CallContext, query: { page: number; perPage: number; name?: string }): Promise<MachinePage> {
    const { machines, pagination } = await this.#client.request(ctx, {
      operation: "listMachines",
      method: "GET",
      path: "/machines",
      query,
      answer: machinePageAnswer,
    });
    return { machines, nextPage: pagination.nextPage };
  }

  async getMachine(ctx: CallContext, id: string): Promise<SandboxMachine | undefined> {
    const path = `/machines/${enc(id)}`;
    const body = await this.#client.request(ctx, {
      operation: "getMachine",
      method: "GET",
      path,
      answer: machineAnswer,
      notFound: true,
    });
    return body?.machine;
  }

  async getLoadBalancer(ctx: CallContext, name: string): Promise<SandboxLoadBalancer | undefined> {
    const body = await this.#client.request(ctx, {
      operation: "getLoadBalancer",
      method: "GET",
      path: `/load-balancers/${enc(name)}`,
      answer: loadBalancerAnswer,
      notFound: true,
    });
    return body?.loadBalancer;
  }

  async putLoadBalancer(ctx: CallContext, name: string, spec: LoadBalancerSpec): Promise<SandboxLoadBalancer> {
    const body = await this.#client.request(ctx, {
      operation: "putLoadBalancer",
      method: "PUT",
      path: `/load-balancers/${enc(name)}`,
      body: spec,
      bodySchema: loadBalancerSpecBody,
      answer: loadBalancerAnswer,
    });
    return body.loadBalancer;
  }

  async setLoadBalancerNodes(ctx: CallContext, name: string, nodes: readonly string[]): Promise<SandboxLoadBalancer> {
    const body = await this.#client.request(ctx, {
      operation: "setLoadBalancerNodes",
      method: "PATCH",
      path: `/load-balancers/${enc(name)}`,
      body: { nodes },
      bodySchema: loadBalancerNodesBody,
      answer: loadBalancerAnswer,
      // Setting the whole list is harmless to repeat, though PATCH in general is not.
      idempotent: true,
    });
    return body.loadBalancer;
  }

  async deleteLoadBalancer(ctx: CallContext, name: string): Promise<boolean> {
    const path = `/load-balancers/${enc(name)}`;
    const gone = await this.#client.request(ctx, {
      operation: "deleteLoadBalancer",
      method: "DELETE",
      path,
      answer: noContent,
      notFound: true,
    });
    return gone !== undefined;
  }

  async listRoutes(ctx: CallContext, cluster: string): Promise<SandboxRoute[]> {
    const body = await this.#client.request(ctx, {
      operation: "listRoutes",
      method: "GET",
      path: "/routes",
      query: { cluster },
      answer: routesAnswer,
    });
    return body.routes;
  }

  async createRoute(ctx: CallContext, route: SandboxRoute): Promise<SandboxRoute> {
    const body = await this.#client.request(ctx, {
      operation: "createRoute",
      method: "POST",
      path: "/routes",
      body: route,
      bodySchema: routeBody,
      answer: routeAnswer,
      // Creating an identical route again succeeds (docs/sandbox.md), so a repeat after a lost answer is harmless.
      idempotent: true,
    });
    return body.route;
  }

  async deleteRoute(ctx: CallContext, name: string): Promise<boolean> {
    const gone = await this.#client.request(ctx, {
      operation: "deleteRoute",
      method: "DELETE",
      path: `/routes/${enc(name)}`,
      answer: noContent,
      notFound: true,
    });
    return gone !== undefined;
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}
