/**
 * A local emulator of the DigitalOcean API v2 (docs/emulators.md), the subset a cloud controller manager uses,
 * written from DigitalOcean's published API description: the real client code talks to it over HTTP on 127.0.0.1.
 */
import { CallCounter } from "../cloud/calls.ts";
import { seededRandom } from "../cloud/random.ts";
import { RateLimitBucket, type RateLimitConfig } from "../kit/rate-limit.ts";
import { type EmulatorOptions, serveEmulator } from "../kit/server.ts";
import { createDoHandler } from "./api.ts";
import { Faults } from "./faults.ts";
import { World } from "./state/world.ts";

/** DigitalOcean's documented budget: 5000 requests an hour. */
export const digitalOceanRateLimit: RateLimitConfig = Object.freeze({ limit: 5000, perHour: 5000 });

export interface DoEmulatorOptions extends EmulatorOptions {
  /** The API token: every call must carry `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Milliseconds since the epoch: drives `created_at`, load balancers' status and the rate limit. Default `Date.now`. */
  readonly now?: () => number;
  /** How long a new load balancer stays `new` (ms); default 5000, 0 ⇒ active at once. */
  readonly lbActiveDelayMs?: number;
  /** Default DigitalOcean's: 5000 an hour. */
  readonly rateLimit?: RateLimitConfig;
  /** What the metadata service's `/metadata/v1/region` answers, as on a Droplet there; default `nyc3`, `""` ⇒ 404. */
  readonly metadataRegion?: string;
}

export interface DoEmulator {
  /** `http://127.0.0.1:<port>`: the API's base URL, under which the client adds `/v2/…`. */
  readonly endpoint: string;
  /** `http://127.0.0.1:<port>`: also the metadata service's root (`DO_METADATA_URL`), serving `/metadata/v1/region`. */
  readonly metadataUrl: string;
  /** `http://127.0.0.1:<port>/_emulator`: the control API. */
  readonly controlUrl: string;
  readonly token: string;
  /** The emulated account, shared with the HTTP API (create resources in process with state/*.ts). */
  readonly world: World;
  readonly faults: Faults;
  readonly bucket: RateLimitBucket;
  readonly calls: CallCounter;
  stop(): Promise<void>;
}

export function startDoEmulator(options: DoEmulatorOptions): DoEmulator {
  if (!options.token) throw new Error("the digitalocean emulator needs a non-empty token");
  const now = options.now ?? Date.now;
  const random = options.random ?? seededRandom(options.seed ?? 1);
  const faults = new Faults(random);
  const world = new World({ now, random, lbActiveDelayMs: options.lbActiveDelayMs ?? 5000 });
  const bucket = new RateLimitBucket(now, options.rateLimit ?? digitalOceanRateLimit);
  const calls = new CallCounter();
  const handler = createDoHandler({
    world,
    faults,
    bucket,
    calls,
    token: options.token,
    now,
    sleep: options.sleep ?? ((ms) => Bun.sleep(ms)),
    logger: options.logger,
    metadataRegion: options.metadataRegion ?? "nyc3",
  });
  const served = serveEmulator({ hostname: options.hostname, port: options.port, fetch: handler });
  const base = served.base;
  return {
    endpoint: base,
    metadataUrl: base,
    controlUrl: `${base}/_emulator`,
    token: options.token,
    world,
    faults,
    bucket,
    calls,
    stop: () => served.stop(),
  };
}
