/**
 * Sizing the cloud-node controller by the provider's declared rate limit (beyond upstream, for fast joins).
 *
 * Upstream defaults `--concurrent-node-syncs` to 1, so a burst of joins is initialised one cloud round trip at a
 * time. Here the flag defaults to 0, "automatic": with a provider that declares `rateLimit` the controller runs
 * `min(burst, 32)` initialisation workers, and 1 (upstream's behaviour) without one. Any explicit value is honoured
 * exactly. Whatever the count, every cloud call the controller makes (initialisation, address refresh, bulk
 * listings) first takes a token from one bucket of the declared `qps`/`burst`, so parallel joins never exceed what
 * the provider said it tolerates. Providers without `rateLimit` get no gate.
 */

import type { Clock } from "../../kube/clock.ts";
import type { CloudProvider, RateLimit } from "../../providers/cloud.ts";
import { bucketRateLimiter } from "../runtime/rate-limiters.ts";

/** Our `--concurrent-node-syncs` default: automatic (upstream's is 1). */
export const DEFAULT_CONCURRENT_NODE_SYNCS = 0;
/** Upper bound of the widened pool: beyond this, more workers only queue on the token bucket. */
export const MAX_DEFAULT_NODE_SYNC_WORKERS = 32;

function usable(limit: RateLimit | undefined): limit is RateLimit {
  return limit !== undefined && limit.qps > 0 && limit.burst >= 1;
}

/** Initialisation workers: the flag as given; for 0 (automatic) `min(burst, 32)` with a declared limit, else 1. */
export function effectiveNodeSyncWorkers(flag: number, rateLimit: RateLimit | undefined): number {
  if (flag !== DEFAULT_CONCURRENT_NODE_SYNCS) return flag;
  if (!usable(rateLimit)) return 1;
  return Math.max(1, Math.min(Math.floor(rateLimit.burst), MAX_DEFAULT_NODE_SYNC_WORKERS));
}

/** The calls are cancelled: the controller is stopping. */
export class CloudGateAbortedError extends Error {
  override readonly name = "CloudGateAbortedError";
  constructor() {
    super("cloud call not made: the controller is stopping");
  }
}

type Capability = "instancesV2" | "instances" | "zones";
const GATED: ReadonlySet<PropertyKey> = new Set<Capability>(["instancesV2", "instances", "zones"]);

/**
 * `provider` with every method of `instancesV2`, `instances` and `zones` waiting for a token of `rateLimit`
 * first (one token per call; a bulk call is one call). Returns `provider` itself when no usable limit is declared.
 * Capabilities are looked up on every access, so a provider that switches them (the fake cloud) stays truthful;
 * optional methods stay absent when the provider lacks them. A wait cut short by `signal` throws
 * `CloudGateAbortedError` instead of calling the cloud.
 */
export function gateProvider(
  provider: CloudProvider,
  rateLimit: RateLimit | undefined,
  clock: Pick<Clock, "now" | "sleep">,
  signal: AbortSignal,
): CloudProvider {
  if (!usable(rateLimit)) return provider;
  const bucket = bucketRateLimiter<string>(rateLimit.qps, rateLimit.burst, clock.now);
  const acquire = async () => {
    const wait = bucket.when("cloud");
    if (wait > 0) await clock.sleep(wait, signal);
    if (signal.aborted) throw new CloudGateAbortedError();
  };
  const wrapped = new WeakMap<object, object>();
  const gate = <T extends object>(target: T): T => {
    const known = wrapped.get(target);
    if (known) return known as T;
    const proxy = new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          await acquire();
          return value.apply(t, args);
        };
      },
    });
    wrapped.set(target, proxy);
    return proxy;
  };
  return new Proxy(provider, {
    // The provider as receiver, not the proxy: class getters may read private fields.
    get(t, prop) {
      const value = Reflect.get(t, prop);
      if (GATED.has(prop) && value !== null && typeof value === "object") return gate(value);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}
