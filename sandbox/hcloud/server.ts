/**
 * A local emulator of the Hetzner Cloud API (docs/emulators.md), written from the public API documentation
 * (/work/shared/reference/peers.md §4): the real client code talks to it over HTTP on 127.0.0.1.
 */
import { CallCounter } from "../cloud/calls.ts";
import { seededRandom } from "../cloud/random.ts";
import { RateLimitBucket, type RateLimitConfig } from "../kit/rate-limit.ts";
import { type EmulatorOptions, serveEmulator } from "../kit/server.ts";
import { createHcloudHandler } from "./api.ts";
import { Faults } from "./faults.ts";
import { World } from "./state/world.ts";

/** Hetzner's documented budget: a bucket of 3600, refilled at 3600 an hour (one a second). */
export const hetznerRateLimit: RateLimitConfig = Object.freeze({ limit: 3600, perHour: 3600 });

export interface HcloudEmulatorOptions extends EmulatorOptions {
  /** The project's API token: every call must carry `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Milliseconds since the epoch: drives actions, `created`, and the rate-limit bucket. Default `Date.now`. */
  readonly now?: () => number;
  /** How long an action runs (ms); default 1000, 0 ⇒ done at once. */
  readonly actionDurationMs?: number;
  /** Send the deprecated `datacenter` object on servers; default false, as the API does since 2026. */
  readonly legacyDatacenter?: boolean;
  /** Default Hetzner's: 3600, refilled at 3600 an hour. */
  readonly rateLimit?: RateLimitConfig;
}

export interface HcloudEmulator {
  /** `http://127.0.0.1:<port>/v1`: what `HCLOUD_ENDPOINT` is set to. */
  readonly endpoint: string;
  /** `http://127.0.0.1:<port>/_emulator`: the control API. */
  readonly controlUrl: string;
  readonly token: string;
  /** The emulated project, shared with the HTTP API (create resources in process with state/*.ts). */
  readonly world: World;
  readonly faults: Faults;
  readonly bucket: RateLimitBucket;
  readonly calls: CallCounter;
  stop(): Promise<void>;
}

export function startHcloudEmulator(options: HcloudEmulatorOptions): HcloudEmulator {
  if (!options.token) throw new Error("the hcloud emulator needs a non-empty token");
  const now = options.now ?? Date.now;
  const random = options.random ?? seededRandom(options.seed ?? 1);
  const faults = new Faults(random);
  const world = new World({
    now,
    faults,
    random,
    actionDurationMs: options.actionDurationMs ?? 1000,
    legacyDatacenter: options.legacyDatacenter ?? false,
  });
  const bucket = new RateLimitBucket(now, options.rateLimit ?? hetznerRateLimit);
  const calls = new CallCounter();
  const handler = createHcloudHandler({
    world,
    faults,
    bucket,
    calls,
    token: options.token,
    now,
    sleep: options.sleep ?? ((ms) => Bun.sleep(ms)),
    logger: options.logger,
  });
  const served = serveEmulator({ hostname: options.hostname, port: options.port, fetch: handler });
  const base = served.base;
  return {
    endpoint: `${base}/v1`,
    controlUrl: `${base}/_emulator`,
    token: options.token,
    world,
    faults,
    bucket,
    calls,
    stop: () => served.stop(),
  };
}
