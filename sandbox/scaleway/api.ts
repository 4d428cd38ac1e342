/**
 * The emulator's fetch handler: the kit's (sandbox/kit/api.ts) with Scaleway's products at the root
 * (`/instance/v1/…`, `/baremetal/v1/…`, `/ipam/v1/…`, `/account/v3/…`), the secret key in `X-Auth-Token`
 * (401 `denied_authentication` otherwise) and Scaleway's error envelope. Scaleway publishes no rate-limit headers
 * for these APIs, so there is no bucket; a test injects 429s as faults.
 */
import type { ConsolaInstance } from "consola";
import type { CallCounter } from "../cloud/calls.ts";
import { createApiHandler } from "../kit/api.ts";
import { controlEndpoints } from "./control.ts";
import { scalewayEnvelope } from "./errors.ts";
import type { Faults } from "./faults.ts";
import { ipamEndpoints } from "./routes/ipam.ts";
import { loadBalancerEndpoints } from "./routes/lb.ts";
import { serverEndpoints } from "./routes/servers.ts";
import type { World } from "./state/world.ts";

export interface ScalewayApiDeps {
  readonly world: World;
  readonly faults: Faults;
  readonly calls: CallCounter;
  readonly secretKey: string;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly logger?: ConsolaInstance | undefined;
}

export function createScalewayHandler(deps: ScalewayApiDeps): (request: Request) => Promise<Response> {
  const handler = createApiHandler({
    name: "scaleway emulator",
    apiPrefix: "",
    world: deps.world,
    endpoints: [...serverEndpoints, ...ipamEndpoints, ...loadBalancerEndpoints],
    control: controlEndpoints(deps),
    envelope: () => scalewayEnvelope,
    authenticated: (request) => request.headers.get("x-auth-token") === deps.secretKey,
    faults: deps.faults,
    calls: deps.calls,
    now: deps.now,
    sleep: deps.sleep,
    logger: deps.logger,
  });
  return async (request) => plainJsonType(await handler(request));
}

/**
 * Scaleway answers `Content-Type: application/json` with no charset, and the official SDK's response parser
 * (`@scaleway/sdk-client` responseParser) decodes a body as JSON only when the type is exactly that; Bun's
 * `Response.json` adds `;charset=utf-8`.
 */
function plainJsonType(response: Response): Response {
  if (!response.headers.get("content-type")?.startsWith("application/json;")) return response;
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
