/**
 * Health endpoints in the Kubernetes healthz format: `/healthz` (and `/readyz`, `/livez`) run every named check;
 * `?verbose` lists `[+]name ok` / `[-]name failed: reason withheld` lines; `?exclude=name` skips a check; each
 * check is also served alone at `/healthz/<name>`. A failure answers 500 and logs the reason (never in the body).
 */
import type { ConsolaInstance } from "consola";

export interface HealthCheck {
  readonly name: string;
  /**
   * Served at `/readyz` only, never at `/healthz` or `/livez`: a condition a restart would not cure (a composite part
   * whose cloud is down), which must not make a liveness probe restart the manager.
   */
  readonly readyzOnly?: boolean;
  /** Throws (or rejects) when unhealthy. */
  check(): void | Promise<void>;
}

/** Always healthy; added first by `startServing` unless the caller has its own `ping`. */
export const pingCheck: HealthCheck = { name: "ping", check: () => {} };

/** A check from a boolean probe, e.g. `namedCheck("leaderElection", election.healthy, "failed election to renew leadership")`. */
export const namedCheck = (name: string, healthy: () => boolean, message = `${name} check failed`): HealthCheck => ({
  name,
  check: () => {
    if (!healthy()) throw new Error(message);
  },
});

const HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache, private",
};

const text = (body: string, status = 200) => new Response(body, { status, headers: HEADERS });

const run = async (check: HealthCheck): Promise<Error | undefined> => {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
};

/**
 * Answers `path` if it is `/<endpoint>` or `/<endpoint>/<check>` for one of `endpoints`; `undefined` otherwise.
 */
export const handleHealth = async (
  url: URL,
  checks: readonly HealthCheck[],
  logger: ConsolaInstance,
  endpoints: readonly string[] = ["healthz", "readyz", "livez"],
): Promise<Response | undefined> => {
  const [, endpoint = "", name, ...rest] = url.pathname.split("/");
  if (!endpoints.includes(endpoint) || rest.length > 0) return undefined;
  checks = endpoint === "readyz" ? checks : checks.filter((c) => !c.readyzOnly);
  if (name !== undefined && name !== "") {
    const check = checks.find((c) => c.name === name);
    if (!check) return undefined;
    const err = await run(check);
    if (!err) return text("ok");
    logger.info(`${endpoint} check "${name}" failed: ${err.message}`);
    return text(`internal server error: ${err.message}\n`, 500);
  }
  const excluded = new Set(url.searchParams.getAll("exclude"));
  const lines: string[] = [];
  const failures: string[] = [];
  for (const check of checks) {
    if (excluded.has(check.name)) {
      lines.push(`[+]${check.name} excluded: ok`);
      continue;
    }
    const err = await run(check);
    if (err) {
      lines.push(`[-]${check.name} failed: reason withheld`);
      failures.push(`${check.name}: ${err.message}`);
    } else {
      lines.push(`[+]${check.name} ok`);
    }
  }
  for (const name of excluded) {
    if (!checks.some((c) => c.name === name))
      lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  }
  if (failures.length > 0) {
    logger.info(`${endpoint} check failed: ${failures.join("; ")}`);
    return text(`${lines.join("\n")}\n${endpoint} check failed\n`, 500);
  }
  if (url.searchParams.has("verbose")) return text(`${lines.join("\n")}\n${endpoint} check passed\n`);
  return text("ok");
};
