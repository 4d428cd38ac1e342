/**
 * client-go's REST client metrics (k8s.io/component-base/metrics/prometheus/restclient), recorded at the client's
 * single request path (http.ts `send`), with upstream's names, labels and buckets so dashboards and alerts written
 * for kube-controller-manager read ours unchanged:
 *
 * - `rest_client_requests_total{code,method,host}`: every answer, `code` the HTTP status or `<error>` when none came
 *   (a refused connection, a timeout, an abort).
 * - `rest_client_request_duration_seconds{verb,host}`: from the request leaving to the response headers.
 * - `rest_client_rate_limiter_duration_seconds{verb,host}`: the wait before a request may go (kube/pacing.ts): in
 *   the token bucket of `--kube-api-qps`/`--kube-api-burst`, or, when the API server's flow control paces us, for a
 *   slot and any pause a 429's `Retry-After` set; throttling made visible.
 *
 * `host` is the API server's `host:port`; `method` and `verb` are the HTTP method. The registry is injected: no
 * module-level registration.
 */
import { Counter, Histogram, type Registry } from "prom-client";

export interface KubeClientMetrics {
  /** A request answered (`code` its status) or failed without an answer (`code` undefined). */
  request(method: string, host: string, code: number | undefined, seconds: number): void;
  /** The time a request waited for the client-side rate limiter. */
  rateLimited(method: string, host: string, seconds: number): void;
}

/** client-go's latency buckets for both histograms. */
export const REST_CLIENT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

const byRegistry = new WeakMap<Registry, KubeClientMetrics>();

/** The metrics on `registry`, registered once however many clients share it. */
export function kubeClientMetrics(registry: Registry): KubeClientMetrics {
  const known = byRegistry.get(registry);
  if (known) return known;
  const registers = [registry];
  const requests = new Counter({
    name: "rest_client_requests_total",
    help: "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.",
    labelNames: ["code", "method", "host"],
    registers,
  });
  /** client-go's two latency histograms: seconds by verb and host, on the same buckets. */
  const byVerbAndHost = (name: string, help: string) =>
    new Histogram({ name, help, labelNames: ["verb", "host"], buckets: REST_CLIENT_BUCKETS, registers });
  const latency = byVerbAndHost(
    "rest_client_request_duration_seconds",
    "[ALPHA] Request latency in seconds. Broken down by verb, and host.",
  );
  const limiter = byVerbAndHost(
    "rest_client_rate_limiter_duration_seconds",
    "[ALPHA] Client side rate limiter latency in seconds. Broken down by verb, and host.",
  );
  const metrics: KubeClientMetrics = {
    request(method, host, code, seconds) {
      requests.inc({ code: code === undefined ? "<error>" : String(code), method, host });
      latency.observe({ verb: method, host }, seconds);
    },
    rateLimited(method, host, seconds) {
      limiter.observe({ verb: method, host }, seconds);
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** `host:port` of a server URL, as client-go labels it (the URL itself when it does not parse). */
export function hostLabel(server: string): string {
  try {
    return new URL(server).host;
  } catch {
    return server;
  }
}
