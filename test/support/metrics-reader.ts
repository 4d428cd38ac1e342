/**
 * The API emulator's tokens and authorizer for a manager whose `/metrics` a scraper reads, as
 * deploy/monitoring/metrics-reader.yaml grants it: the manager may do anything, the reader may GET /metrics and
 * nothing else, everyone else is denied. And a scrape with the reader's token.
 */
import type { Authorizer } from "../../sandbox/apiserver/auth.ts";

/** `manager-token` is the manager's (its kubeconfig's user), `reader-token` the scraper's. */
export const METRICS_TOKENS = {
  "manager-token": { user: "cloud-controller-manager" },
  "reader-token": { user: "metrics-reader" },
};

export const metricsAuthorizer: Authorizer = (a) => {
  if (a.user === "cloud-controller-manager") return { allowed: true };
  if (a.user === "metrics-reader" && a.path === "/metrics" && a.verb === "get") return { allowed: true };
  return { allowed: false, reason: "no rule allows it" };
};

/** The manager's `/metrics` at `base` read with the reader's token, or "" while it does not serve yet. */
export async function scrapeMetrics(base: string): Promise<string> {
  try {
    const response = await fetch(`${base}/metrics`, {
      keepalive: false,
      tls: { rejectUnauthorized: false },
      headers: { authorization: "Bearer reader-token" },
    });
    return response.ok ? await response.text() : "";
  } catch {
    return "";
  }
}
