/**
 * Per-call metrics of a provider's cloud API, named as upstream's in-tree clouds name theirs (AWS, GCE:
 * `cloudprovider_<cloud>_api_request_duration_seconds`, `…_api_request_errors`, `…_api_throttled_requests_total`),
 * each labelled `request` with the operation (`getMachine`, `listServers`).
 *
 * Like GCE's (and unlike AWS's, which times only successes) the duration is observed for every call, so its
 * `_count` is the number of calls and `errors / _count` the error ratio. One call is what the caller waited for:
 * the cloud-API kit's retries and back-off waits are inside it.
 */
import { Counter, Histogram, Registry } from "prom-client";
import type { Now } from "../../kube/clock.ts";
import { alpha, perRegistry } from "../../platform/metrics.ts";
import { findInCauseChain, RetryError } from "../errors.ts";

/** How a call ended: "throttled" is a failure because the cloud asked to slow down (a `RetryError`). */
export type CallOutcome = "ok" | "error" | "throttled";

export interface ProviderApiMetrics {
  /** One finished call: its duration, and one error (and one throttled request) unless it ended "ok". */
  observe(operation: string, seconds: number, outcome: CallOutcome): void;
  /**
   * One answer that refused the call for the cloud's rate limit while the call went on (the kit waited and tried
   * again). A call that ends throttled is counted by `observe` instead, so each refusal counts once.
   */
  throttled(operation: string): void;
}

/** `cloudprovider_<provider>_` with the characters Prometheus does not allow in a name (`-`, `.`) as `_`. */
export const providerMetricPrefix = (provider: string): string =>
  `cloudprovider_${provider.replace(/[^a-zA-Z0-9_]/g, "_")}_`;

/** Upstream's default buckets (client_golang `DefBuckets`), as the AWS and GCE API histograms use. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Get-or-create per registry and provider (a registry of its own when `registry` is undefined). */
export function providerApiMetrics(registry: Registry | undefined, provider: string): ProviderApiMetrics {
  const target = registry ?? new Registry();
  return perRegistry(target, `provider-api:${provider}`, () => {
    const prefix = providerMetricPrefix(provider);
    const labelNames = ["request"] as const;
    const registers = [target];
    const duration = new Histogram({
      name: `${prefix}api_request_duration_seconds`,
      help: alpha(`Latency of ${provider} API calls, retries and back-off included, by operation.`),
      labelNames,
      buckets: BUCKETS,
      registers,
    });
    const errors = new Counter({
      name: `${prefix}api_request_errors`,
      help: alpha(`${provider} API calls that failed, by operation.`),
      labelNames,
      registers,
    });
    const throttled = new Counter({
      name: `${prefix}api_throttled_requests_total`,
      help: alpha(`${provider} API requests the cloud refused for its rate limit, by operation.`),
      labelNames,
      registers,
    });
    return {
      observe(operation, seconds, outcome) {
        duration.observe({ request: operation }, seconds);
        if (outcome !== "ok") errors.inc({ request: operation });
        if (outcome === "throttled") throttled.inc({ request: operation });
      },
      throttled(operation) {
        throttled.inc({ request: operation });
      },
    };
  });
}

/** How an error ends a call: throttled when a `RetryError` is anywhere in its cause chain. */
export const outcomeOf = (err: unknown): CallOutcome => (findInCauseChain(err, RetryError) ? "throttled" : "error");

/**
 * Times `call`, records it under `operation` (an error counts as "error"; a RetryError in the cause chain as
 * "throttled"), rethrows. `now` is in milliseconds (default `performance.now`).
 */
export async function instrumented<T>(
  metrics: ProviderApiMetrics,
  operation: string,
  call: () => Promise<T>,
  now: Now = () => performance.now(),
): Promise<T> {
  const start = now();
  try {
    const result = await call();
    metrics.observe(operation, (now() - start) / 1000, "ok");
    return result;
  } catch (err) {
    metrics.observe(operation, (now() - start) / 1000, outcomeOf(err));
    throw err;
  }
}
