/**
 * The emulator's fetch handler: the kit's (sandbox/kit/api.ts) with Hetzner's API under `/v1`, the bearer token
 * (401 `unauthorized`), the rate-limit bucket (429 `rate_limit_exceeded`, and the `RateLimit-*` headers on every
 * answer to an authenticated API call) and Hetzner's error envelope.
 */
import type { ConsolaInstance } from "consola";
import type { CallCounter } from "../cloud/calls.ts";
import { createApiHandler } from "../kit/api.ts";
import type { RateLimitBucket } from "../kit/rate-limit.ts";
import { type ControlDeps, controlEndpoints } from "./control.ts";
import { hcloudEnvelope } from "./errors.ts";
import type { Faults } from "./faults.ts";
import { actionEndpoints } from "./routes/actions.ts";
import { catalogEndpoints } from "./routes/catalog.ts";
import { certificateEndpoints } from "./routes/certificates.ts";
import type { Endpoint } from "./routes/endpoint.ts";
import { loadBalancerEndpoints } from "./routes/load-balancers.ts";
import { networkEndpoints } from "./routes/networks.ts";
import { serverEndpoints } from "./routes/servers.ts";
import type { World } from "./state/world.ts";

export const API_PREFIX = "/v1";
export { CONTROL_PREFIX } from "../kit/api.ts";

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
  return createApiHandler({
    name: "hcloud emulator",
    apiPrefix: API_PREFIX,
    world: deps.world,
    endpoints: apiEndpoints,
    control: controlEndpoints(deps),
    envelope: () => hcloudEnvelope,
    authenticated: (request) => request.headers.get("authorization") === `Bearer ${deps.token}`,
    faults: deps.faults,
    limiter: deps.bucket,
    calls: deps.calls,
    now: deps.now,
    sleep: deps.sleep,
    logger: deps.logger,
  });
}
