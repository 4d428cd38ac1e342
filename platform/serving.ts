/**
 * The manager's HTTPS endpoint (`--bind-address`, `--secure-port`): health checks, Prometheus metrics, with
 * `profiling` the heap's figures and with `heapSnapshot` its snapshots (`/debug/heap/*`, `heap-debug.ts`), and any extra routes (e.g.
 * `/configz`), behind delegated authentication and authorisation (`delegated-auth.ts`).
 *
 * `port: 0` listens on a random free port (tests). The flag's meaning of 0 — no server at all — is the caller's:
 * it simply does not call `startServing`.
 *
 * A certificate from files (`--tls-cert-file`, `--tls-private-key-file`) is reloaded when the files change
 * (`tls-listener.ts`, which the webhook port shares). Without them, `certDir` (`--cert-dir`) keeps a generated pair,
 * `cloud-controller-manager.crt`/`.key` as upstream names it, so a restart serves the same certificate.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { KubeClient } from "../kube/client-types.ts";
import type { Now, SetTimer } from "../kube/clock.ts";
import { createDelegatedAuth, DEFAULT_ALWAYS_ALLOW_PATHS } from "./delegated-auth.ts";
import { type HealthCheck, handleHealth, pingCheck } from "./healthz.ts";
import { heapDebugRoutes } from "./heap-debug.ts";
import { servingCertFiles } from "./self-signed.ts";
import { listenTls, ServingError, type TlsListener } from "./tls-listener.ts";
import type { TlsPolicy } from "./tls-policy.ts";

export type RouteHandler = (request: Request) => Response | Promise<Response>;

export interface ServingOptions {
  /** Default `0.0.0.0`. */
  readonly bindAddress?: string;
  /** 0 = a random free port. */
  readonly port: number;
  /** Both or neither; neither ⇒ an in-memory self-signed certificate for localhost/127.0.0.1. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  /** `--cert-dir`: without files, the folder of the generated pair; empty or unset ⇒ generated in memory. */
  readonly certDir?: string | undefined;
  /** `--permit-port-sharing`: listen with SO_REUSEPORT, so another process may listen on the port too. */
  readonly permitPortSharing?: boolean;
  /** `--tls-min-version` and `--tls-cipher-suites` (`tls-policy.ts`). */
  readonly tls?: TlsPolicy;
  /** For TokenReview and SubjectAccessReview. */
  readonly client?: KubeClient | undefined;
  /** Without a client: allow every request instead of forbidding all but the always-allowed paths. */
  readonly allowAllWithoutClient?: boolean;
  /** `--authorization-always-allow-paths`; default `/healthz,/readyz,/livez`. */
  readonly alwaysAllowPaths?: readonly string[];
  /** Served at `/healthz`, `/readyz`, `/livez` and `/<endpoint>/<name>`; `ping` is added first. */
  readonly checks: readonly HealthCheck[];
  readonly registry: Registry;
  /** `--profiling`: serve `/debug/heap/stats` (guarded like `/metrics`); off ⇒ 404. */
  readonly profiling?: boolean;
  /** `--heap-snapshot`: serve `/debug/heap/snapshot` (guarded like `/metrics`); off ⇒ 404. It holds secrets in clear. */
  readonly heapSnapshot?: boolean;
  /** More guarded routes by exact path, e.g. `/configz`. */
  readonly routes?: Readonly<Record<string, RouteHandler>>;
  readonly logger: ConsolaInstance;
  /** `--authentication-token-webhook-cache-ttl`; default 10s. */
  readonly tokenCacheTtlMs?: number;
  /** `--authorization-webhook-cache-authorized-ttl` / `-unauthorized-ttl`; default 10s each. */
  readonly authorizedCacheTtlMs?: number;
  readonly unauthorizedCacheTtlMs?: number;
  /** How often certificate files are checked for a change; default 60s. */
  readonly certReloadIntervalMs?: number;
  readonly now: Now;
  /** For the certificate reload; the real timer by default. */
  readonly setTimer?: SetTimer;
}

export type Serving = TlsListener;

/** Upstream's `PairName` for the secure port's generated certificate. */
export const SERVING_CERT_PAIR = "cloud-controller-manager";
export { ServingError };

export const startServing = async (options: ServingOptions): Promise<Serving> => {
  const { logger, registry } = options;
  const checks = options.checks.some((c) => c.name === pingCheck.name)
    ? options.checks
    : [pingCheck, ...options.checks];
  const guard = createDelegatedAuth({
    client: options.client,
    allowAllWithoutClient: options.allowAllWithoutClient ?? false,
    alwaysAllowPaths: options.alwaysAllowPaths ?? DEFAULT_ALWAYS_ALLOW_PATHS,
    tokenCacheTtlMs: options.tokenCacheTtlMs ?? 10_000,
    authorizedTtlMs: options.authorizedCacheTtlMs ?? 10_000,
    unauthorizedTtlMs: options.unauthorizedCacheTtlMs ?? 10_000,
    now: options.now,
    logger,
  });
  const routes: Record<string, RouteHandler> = {
    "/metrics": async () =>
      new Response(await registry.metrics(), {
        headers: { "content-type": registry.contentType, "cache-control": "no-cache, private" },
      }),
    ...heapDebugRoutes({ stats: options.profiling ?? false, snapshot: options.heapSnapshot ?? false }),
    ...options.routes,
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const denied = await guard(request, url.pathname);
    if (denied) return denied;
    const health = await handleHealth(url, checks, logger);
    if (health) return health;
    const route = routes[url.pathname];
    if (route) return route(request);
    return new Response("404 page not found\n", { status: 404, headers: { "content-type": "text/plain" } });
  };

  const files = await servingCertFiles({
    certFile: options.certFile ?? "",
    keyFile: options.keyFile ?? "",
    certDir: options.certDir ?? "",
    pairName: SERVING_CERT_PAIR,
    now: options.now,
  });
  if (files.generated) logger.info(`generated a self-signed serving certificate in ${files.certFile}`);
  return listenTls({
    bindAddress: options.bindAddress ?? "0.0.0.0",
    port: options.port,
    certFile: files.certFile,
    keyFile: files.keyFile,
    reusePort: options.permitPortSharing ?? false,
    ...(options.tls && { tls: options.tls }),
    handle,
    logger,
    now: options.now,
    ...(options.certReloadIntervalMs !== undefined && { certReloadIntervalMs: options.certReloadIntervalMs }),
    ...(options.setTimer && { setTimer: options.setTimer }),
  });
};
