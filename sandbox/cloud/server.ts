/**
 * Start the simulated cloud: its REST API on 127.0.0.1 (see docs/sandbox.md) and the same state in process.
 */
import type { ConsolaInstance } from "consola";
import { createCloudHandler } from "./api.ts";
import { CallCounter } from "./calls.ts";
import { Faults } from "./faults.ts";
import { type Random, seededRandom } from "./random.ts";
import { CloudState } from "./state.ts";

export interface SimulatedCloudOptions {
  /** The bearer token every call must carry. */
  readonly token: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Loopback by default; the sandbox never needs more. */
  readonly hostname?: string;
  /** Seeds machine IDs and the error-rate draws; default 1, so two clouds started alike behave alike. */
  readonly seed?: number;
  /** Overrides `seed`. */
  readonly random?: Random;
  /** Load-balancer address pool (IPv4 CIDR); default 203.0.113.0/24. */
  readonly addressPool?: string;
  /** Milliseconds; drives the rate limiter's token bucket and load-balancer timestamps. Default `Date.now`. */
  readonly now?: () => number;
  /** Used for injected latency. Default `Bun.sleep`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Changes are logged at info, every call at debug. */
  readonly logger?: ConsolaInstance;
}

export interface SimulatedCloud {
  /** `http://127.0.0.1:<port>`, without a trailing slash; the API lives under `/v1`. */
  readonly url: string;
  readonly token: string;
  /** Direct access to machines, load balancers and routes; shared with the HTTP API. */
  readonly state: CloudState;
  readonly faults: Faults;
  readonly calls: CallCounter;
  /** Stop listening and drop open connections. */
  stop(): Promise<void>;
}

export function startSimulatedCloud(options: SimulatedCloudOptions): SimulatedCloud {
  if (!options.token) throw new Error("the simulated cloud needs a non-empty token");
  const random = options.random ?? seededRandom(options.seed ?? 1);
  const nowMs = options.now ?? Date.now;
  const state = new CloudState({
    random,
    now: () => new Date(nowMs()),
    ...(options.addressPool === undefined ? {} : { loadBalancerPool: options.addressPool }),
  });
  const faults = new Faults({ random, now: nowMs });
  const calls = new CallCounter();
  const logger = options.logger;
  const unsubscribe = state.onChange((change) => logger?.info(change.summary));
  const handler = createCloudHandler({
    state,
    faults,
    calls,
    token: options.token,
    sleep: options.sleep ?? ((ms) => Bun.sleep(ms)),
    now: nowMs,
    logger,
  });
  const server = Bun.serve({ hostname: options.hostname ?? "127.0.0.1", port: options.port ?? 0, fetch: handler });
  const host = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  return {
    url: `http://${host}:${server.port}`,
    token: options.token,
    state,
    faults,
    calls,
    async stop() {
      unsubscribe();
      await server.stop(true);
    },
  };
}
