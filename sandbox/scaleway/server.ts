/**
 * A local emulator of the Scaleway APIs a cloud controller manager reads (docs/emulators.md): Instance and Elastic
 * Metal servers, IPAM IPs and projects, written from Scaleway's published API description as the official SDK
 * restates it. The real client code talks to it over HTTP on 127.0.0.1.
 */
import { CallCounter } from "../cloud/calls.ts";
import { seededRandom } from "../cloud/random.ts";
import { type EmulatorOptions, serveEmulator } from "../kit/server.ts";
import { createScalewayHandler } from "./api.ts";
import { Faults } from "./faults.ts";
import { World } from "./state/world.ts";

export interface ScalewayEmulatorOptions extends EmulatorOptions {
  /** The API key's secret: every call must carry `X-Auth-Token: <secret key>`. */
  readonly secretKey: string;
  /** Milliseconds since the epoch: drives creation dates. Default `Date.now`. */
  readonly now?: () => number;
}

export interface ScalewayEmulator {
  /** `http://127.0.0.1:<port>`: what `SCW_API_URL` is set to. */
  readonly endpoint: string;
  /** `http://127.0.0.1:<port>/_emulator`: the control API. */
  readonly controlUrl: string;
  readonly secretKey: string;
  /** The emulated organisation, shared with the HTTP API (create resources in process with state/*.ts). */
  readonly world: World;
  readonly faults: Faults;
  readonly calls: CallCounter;
  stop(): Promise<void>;
}

export function startScalewayEmulator(options: ScalewayEmulatorOptions): ScalewayEmulator {
  if (!options.secretKey) throw new Error("the scaleway emulator needs a non-empty secret key");
  const now = options.now ?? Date.now;
  const random = options.random ?? seededRandom(options.seed ?? 1);
  const faults = new Faults(random);
  const world = new World({ now, random });
  const calls = new CallCounter();
  const handler = createScalewayHandler({
    world,
    faults,
    calls,
    secretKey: options.secretKey,
    now,
    sleep: options.sleep ?? ((ms) => Bun.sleep(ms)),
    logger: options.logger,
  });
  const served = serveEmulator({ hostname: options.hostname, port: options.port, fetch: handler });
  return {
    endpoint: served.base,
    controlUrl: `${served.base}/_emulator`,
    secretKey: options.secretKey,
    world,
    faults,
    calls,
    stop: () => served.stop(),
  };
}
