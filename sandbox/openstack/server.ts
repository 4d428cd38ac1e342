/**
 * A local emulator of the OpenStack APIs a cloud controller manager uses for its nodes (docs/emulators.md): Keystone
 * v3 under `/identity/v3`, Nova v2.1 under `/compute/v2.1`, Neutron v2.0 under `/networking/v2.0`, Octavia v2 under
 * `/load-balancer/v2`, all on one
 * port on 127.0.0.1, as devstack lays them out; the token's catalog points at them. The control API is under
 * `/_emulator`. Written from the OpenStack API reference; the provider's real client talks to it over HTTP.
 *
 * This file is the whole of the server's plumbing (serve, route, count, inject faults) so it can move onto the
 * shared emulator kit as one piece; the services' behaviour lives in keystone.ts, nova.ts, neutron.ts, floating-ips.ts and octavia.ts.
 */
import type { ConsolaInstance } from "consola";
import { CallCounter } from "../cloud/calls.ts";
import { type Random, seededRandom } from "../cloud/random.ts";
import { controlEndpoints } from "./control.ts";
import { envelope, OsError, type Service, unauthorized } from "./errors.ts";
import { Faults } from "./faults.ts";
import { floatingIPEndpoints } from "./floating-ips.ts";
import { keystoneEndpoints } from "./keystone.ts";
import { neutronEndpoints } from "./neutron.ts";
import { novaEndpoints } from "./nova.ts";
import { octaviaEndpoints } from "./octavia.ts";
import { type Project, seedProject, type User, World } from "./state.ts";

export interface Call {
  readonly params: Readonly<Record<string, string>>;
  readonly url: URL;
  readonly request: Request;
  readonly world: World;
  /** Where the services live: `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly emulator: OpenStackEmulator;
  body(): Promise<unknown>;
}

export interface Endpoint {
  readonly service: Service | "control";
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** The full path with `:name` segments: `/compute/v2.1/servers/:id`. */
  readonly route: string;
  /** Keystone's token request is the one API call without a token. */
  readonly anonymous?: boolean;
  handle(call: Call): Response | Promise<Response>;
}

export interface OpenStackEmulatorOptions {
  readonly username?: string;
  readonly password?: string;
  readonly project?: string;
  readonly region?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly hostname?: string;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly seed?: number;
  readonly random?: Random;
  /** Nova's highest microversion, `[2, 96]` by default; `[2, 46]` plays a cloud older than Pike. */
  readonly novaMaxMicroversion?: readonly [number, number];
  /** Whether the catalog lists Octavia (`load-balancer`); default true. `false` plays a cloud without it. */
  readonly octavia?: boolean;
  readonly logger?: ConsolaInstance;
}

export interface OpenStackEmulator {
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** Keystone's URL as `[Global] auth-url` takes it: `<base>/identity/v3`. */
  readonly authUrl: string;
  readonly controlUrl: string;
  readonly region: string;
  readonly novaMaxMicroversion: readonly [number, number];
  /** Whether the catalog lists Octavia. */
  readonly octavia: boolean;
  readonly world: World;
  readonly faults: Faults;
  readonly calls: CallCounter;
  /** The seeded user and project. */
  readonly user: User;
  readonly project: Project;
  stop(): Promise<void>;
}

export function startOpenStackEmulator(options: OpenStackEmulatorOptions = {}): OpenStackEmulator {
  const now = options.now ?? Date.now;
  const random = options.random ?? seededRandom(options.seed ?? 1);
  const world = new World(random, now);
  const { user, project } = seedProject(world, {
    username: options.username ?? "admin",
    password: options.password ?? "secret-password",
    project: options.project ?? "k8s",
  });
  const faults = new Faults(random);
  const calls = new CallCounter();
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms));
  const endpoints = [
    ...keystoneEndpoints,
    ...novaEndpoints,
    ...neutronEndpoints,
    ...floatingIPEndpoints,
    ...octaviaEndpoints,
    ...controlEndpoints,
  ];
  // Assigned once the server's port is known; the handler reads it only when a request arrives.
  let emulator: OpenStackEmulator;
  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    fetch: (request) => handle(request),
  });
  const host = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  const base = `http://${host}:${server.port}`;

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const found = match(endpoints, method, url.pathname);
    const service = found.endpoint?.service ?? serviceOf(url.pathname);
    let response: Response;
    try {
      if (!found.endpoint) {
        throw found.allowed.length > 0
          ? new OsError(405, `${method} is not allowed on ${url.pathname}; use ${found.allowed.join(", ")}`)
          : new OsError(404, `no such resource: ${url.pathname}`);
      }
      const endpoint = found.endpoint;
      if (endpoint.service !== "control") {
        if (!endpoint.anonymous && !world.liveToken(request.headers.get("x-auth-token"))) throw unauthorized();
        if (faults.latencyMs > 0) await sleep(faults.latencyMs);
        const fault = faults.check(method, url.pathname);
        if (fault) throw fault;
      }
      const call: Call = {
        params: found.params,
        url,
        request,
        world,
        base,
        emulator,
        body: () => readJson(request),
      };
      response = await endpoint.handle(call);
    } catch (err) {
      const e = err instanceof OsError ? err : new OsError(500, err instanceof Error ? err.message : String(err));
      if (!(err instanceof OsError)) options.logger?.error(`openstack emulator: ${method} ${url.pathname}`, err);
      response = Response.json(envelope(service === "control" ? "identity" : service, e), { status: e.status });
    }
    calls.record(method, found.endpoint?.route ?? "(unmatched)", response.status);
    options.logger?.debug(`${method} ${url.pathname}${url.search} → ${response.status}`);
    return response;
  }

  emulator = {
    base,
    authUrl: `${base}/identity/v3`,
    controlUrl: `${base}/_emulator`,
    region: options.region ?? "RegionOne",
    novaMaxMicroversion: options.novaMaxMicroversion ?? [2, 96],
    octavia: options.octavia ?? true,
    world,
    faults,
    calls,
    user,
    project,
    async stop() {
      await server.stop(true);
    },
  };
  return emulator;
}

function serviceOf(path: string): Service | "control" {
  if (path.startsWith("/compute/")) return "compute";
  if (path.startsWith("/networking/")) return "network";
  if (path.startsWith("/load-balancer/")) return "load-balancer";
  if (path.startsWith("/_emulator/")) return "control";
  return "identity";
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new OsError(400, "Malformed request body: not JSON");
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

/** A JSON answer with the given status and headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}
