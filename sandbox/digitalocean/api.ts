/**
 * The emulator's fetch handler: the kit's (sandbox/kit/api.ts) with DigitalOcean's API under `/v2`, the bearer
 * token (401 `unauthorized`), the hourly budget (429 `too_many_requests`, and the `ratelimit-*` headers on every
 * answer to an authenticated API call) and DigitalOcean's error envelope, made once per request so that its
 * `request_id` is also the `x-request-id` header on every answer.
 *
 * Beside them, unauthenticated as on a Droplet, the metadata service's `GET /metadata/v1/region` (a Droplet asks
 * `http://169.254.169.254/metadata/v1/region`): the region as plain text, or 404 when none is set.
 */
import type { ConsolaInstance } from "consola";
import { createApiHandler } from "../kit/api.ts";
import { type ControlDeps, controlEndpoints } from "./control.ts";
import { doEnvelope } from "./errors.ts";
import { certificateEndpoints } from "./routes/certificates.ts";
import { dropletEndpoints } from "./routes/droplets.ts";
import type { Endpoint } from "./routes/endpoint.ts";
import { firewallEndpoints } from "./routes/firewalls.ts";
import { loadBalancerEndpoints } from "./routes/load-balancers.ts";
import { tagEndpoints } from "./routes/tags.ts";

export const API_PREFIX = "/v2";

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
  const api = createApiHandler({
    name: "digitalocean emulator",
    apiPrefix: API_PREFIX,
    world: deps.world,
    endpoints: apiEndpoints,
    control: controlEndpoints(deps),
    envelope: () => doEnvelope(deps.world.uuid()),
    authenticated: (request) => request.headers.get("authorization") === `Bearer ${deps.token}`,
    faults: deps.faults,
    limiter: deps.bucket,
    calls: deps.calls,
    now: deps.now,
    sleep: deps.sleep,
    logger: deps.logger,
  });
  return async (request) => {
    if (new URL(request.url).pathname === METADATA_REGION_PATH && request.method.toUpperCase() === "GET") {
      return deps.metadataRegion
        ? new Response(deps.metadataRegion, { headers: { "content-type": "text/plain" } })
        : new Response("not found", { status: 404 });
    }
    return api(request);
  };
}
