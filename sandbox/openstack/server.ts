/**
 * A local emulator of the OpenStack APIs a cloud controller manager uses for its nodes (docs/emulators.md): Keystone
 * v3 under `/identity/v3`, Nova v2.1 under `/compute/v2.1`, Neutron v2.0 under `/networking/v2.0`, Octavia v2 under
 * `/load-balancer/v2`, all on one port on 127.0.0.1, as devstack lays them out; the token's catalog points at them.
 * The control API is under `/_emulator`. Written from the OpenStack API reference; the provider's real client talks
 * to it over HTTP.
 *
 * It runs on the shared emulator kit (sandbox/kit/): its API has no common prefix, so every route is a full path,
 * and each answer's envelope is that of the service its path is under (errors.ts). Keystone's token request is the
 * one API call without a token; the control API needs none. The services' behaviour lives in keystone.ts, nova.ts,
 * neutron.ts, floating-ips.ts and octavia.ts.
 */
import { CallCounter } from "../cloud/calls.ts";
import { seededRandom } from "../cloud/random.ts";
import { CONTROL_PREFIX, createApiHandler, type Envelope } from "../kit/api.ts";
import { commonControlEndpoints } from "../kit/control.ts";
import { type Endpoint as KitEndpoint, match } from "../kit/router.ts";
import { type EmulatorOptions, serveEmulator } from "../kit/server.ts";
import { controlEndpoints } from "./control.ts";
import { envelope, OsError, type Service, unauthorized } from "./errors.ts";
import { Faults, faultsSchema } from "./faults.ts";
import { floatingIPEndpoints } from "./floating-ips.ts";
import { keystoneEndpoints } from "./keystone.ts";
import { neutronEndpoints } from "./neutron.ts";
import { novaEndpoints } from "./nova.ts";
import { octaviaEndpoints } from "./octavia.ts";
import { type Project, seedProject, type User, World } from "./state.ts";

export { json } from "../kit/router.ts";

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
  /** The full path with `:name` segments: `/compute/v2.1/servers/:id`; a control route comes after `/_emulator`. */
  readonly route: string;
  /** Keystone's token request is the one API call without a token. */
  readonly anonymous?: boolean;
  handle(call: Call): Response | Promise<Response>;
}

export interface OpenStackEmulatorOptions extends EmulatorOptions {
  readonly username?: string;
  readonly password?: string;
  readonly project?: string;
  readonly region?: string;
  /** Nova's highest microversion, `[2, 96]` by default; `[2, 46]` plays a cloud older than Pike. */
  readonly novaMaxMicroversion?: readonly [number, number];
  /** Whether the catalog lists Octavia (`load-balancer`); default true. `false` plays a cloud without it. */
  readonly octavia?: boolean;
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
  const api = [
    ...keystoneEndpoints,
    ...novaEndpoints,
    ...neutronEndpoints,
    ...floatingIPEndpoints,
    ...octaviaEndpoints,
  ];
  // Assigned once the server's port is known; the handler reads it only when a request arrives.
  let emulator: OpenStackEmulator;
  const adapt = (e: Endpoint): KitEndpoint<World> => ({
    method: e.method,
    route: e.route,
    handle: (call) =>
      e.handle({
        params: call.params,
        url: call.url,
        request: call.request,
        world,
        base: emulator.base,
        emulator,
        body: call.body,
      }),
  });
  const endpoints = api.map(adapt);
  const anonymous = new Set(endpoints.filter((_, i) => api[i]?.anonymous));
  const served = serveEmulator({
    port: options.port,
    hostname: options.hostname,
    fetch: createApiHandler<World, OsError>({
      name: "openstack emulator",
      apiPrefix: "",
      world,
      endpoints,
      control: [
        ...controlEndpoints.map(adapt),
        ...(commonControlEndpoints({ faults, faultsSchema, calls }) as KitEndpoint<World>[]),
      ],
      envelope: (request) => serviceEnvelope(serviceOf(new URL(request.url).pathname)),
      // A path no endpoint takes is answered 404 (or 405) with a token or without, as before the kit.
      authenticated: (request) => {
        const url = new URL(request.url);
        if (url.pathname.startsWith(`${CONTROL_PREFIX}/`)) return true;
        const found = match(endpoints, request.method.toUpperCase(), url.pathname).endpoint;
        return !found || anonymous.has(found) || world.liveToken(request.headers.get("x-auth-token")) !== undefined;
      },
      countRefused: true,
      faults,
      calls,
      now,
      sleep: options.sleep ?? ((ms: number) => Bun.sleep(ms)),
      logger: options.logger,
    }),
  });

  emulator = {
    base: served.base,
    authUrl: `${served.base}/identity/v3`,
    controlUrl: `${served.base}${CONTROL_PREFIX}`,
    region: options.region ?? "RegionOne",
    novaMaxMicroversion: options.novaMaxMicroversion ?? [2, 96],
    octavia: options.octavia ?? true,
    world,
    faults,
    calls,
    user,
    project,
    stop: () => served.stop(),
  };
  return emulator;
}

/** The kit's refusals and what routes throw, in `service`'s envelope (the control API answers in Keystone's). */
function serviceEnvelope(service: Service | "control"): Envelope<OsError> {
  const shape = service === "control" ? "identity" : service;
  return {
    owns: (err): err is OsError => err instanceof OsError,
    answer: (err) => Response.json(envelope(shape, err), { status: err.status }),
    unauthorized,
    noSuchPath: (path) => new OsError(404, `no such resource: ${path}`),
    methodNotAllowed: (method, path, allowed) =>
      new OsError(405, `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
    rateLimited: () => new OsError(429, "Too many requests"),
    notJson: () => new OsError(400, "Malformed request body: not JSON"),
    invalid: (issues) => new OsError(400, issues.map((i) => i.message).join("; ")),
    serverError: (message) => new OsError(500, message),
  };
}

function serviceOf(path: string): Service | "control" {
  if (path.startsWith("/compute/")) return "compute";
  if (path.startsWith("/networking/")) return "network";
  if (path.startsWith("/load-balancer/")) return "load-balancer";
  if (path.startsWith(`${CONTROL_PREFIX}/`)) return "control";
  return "identity";
}
