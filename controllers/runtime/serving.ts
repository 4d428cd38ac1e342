/**
 * The manager's HTTPS endpoint (`--bind-address`, `--secure-port`): health checks, Prometheus metrics and any extra
 * routes (e.g. `/configz`), behind delegated authentication and authorisation (`delegated-auth.ts`).
 *
 * `port: 0` listens on a random free port (tests). The flag's meaning of 0 — no server at all — is the caller's:
 * it simply does not call `startServing`.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { KubeClient } from "../../kube/client-types.ts";
import type { Now } from "./clock.ts";
import { createDelegatedAuth, DEFAULT_ALWAYS_ALLOW_PATHS } from "./delegated-auth.ts";
import { type HealthCheck, handleHealth, pingCheck } from "./healthz.ts";
import { loadServingCert } from "./self-signed.ts";

export type RouteHandler = (request: Request) => Response | Promise<Response>;

export interface ServingOptions {
  /** Default `0.0.0.0`. */
  readonly bindAddress?: string;
  /** 0 = a random free port. */
  readonly port: number;
  /** Both or neither; neither ⇒ an in-memory self-signed certificate for localhost/127.0.0.1. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  /** For TokenReview and SubjectAccessReview. */
  readonly client?: KubeClient | undefined;
  /** Without a client: allow every request instead of forbidding all but the always-allowed paths. */
  readonly allowAllWithoutClient?: boolean;
  /** `--authorization-always-allow-paths`; default `/healthz,/readyz,/livez`. */
  readonly alwaysAllowPaths?: readonly string[];
  /** Served at `/healthz`, `/readyz`, `/livez` and `/<endpoint>/<name>`; `ping` is added first. */
  readonly checks: readonly HealthCheck[];
  readonly registry: Registry;
  /** More guarded routes by exact path, e.g. `/configz`. */
  readonly routes?: Readonly<Record<string, RouteHandler>>;
  readonly logger: ConsolaInstance;
  /** `--authentication-token-webhook-cache-ttl`; default 10s. */
  readonly tokenCacheTtlMs?: number;
  /** `--authorization-webhook-cache-authorized-ttl` / `-unauthorized-ttl`; default 10s each. */
  readonly authorizedCacheTtlMs?: number;
  readonly unauthorizedCacheTtlMs?: number;
  readonly now: Now;
}

export interface Serving {
  /** `https://<host>:<port>` (a wildcard bind address is shown as loopback). */
  readonly url: string;
  readonly port: number;
  /** True when the certificate was generated in memory. */
  readonly selfSigned: boolean;
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
}

export class ServingError extends Error {
  override readonly name = "ServingError";
}

const dialable = (host: string): string => {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
};

export const startServing = async (options: ServingOptions): Promise<Serving> => {
  const { logger, registry } = options;
  const bindAddress = options.bindAddress ?? "0.0.0.0";
  const tls = await loadServingCert({ certFile: options.certFile, keyFile: options.keyFile, now: options.now });
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

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: bindAddress,
      port: options.port,
      tls: { cert: tls.cert, key: tls.key },
      fetch: async (request) => {
        const started = options.now();
        try {
          const response = await handle(request);
          logger.debug(
            `${request.method} ${new URL(request.url).pathname} ${response.status} ${options.now() - started}ms`,
          );
          return response;
        } catch (err) {
          logger.error(`panic serving ${request.method} ${request.url}: ${(err as Error).message}`);
          return new Response("Internal Server Error\n", { status: 500 });
        }
      },
      error: (err) => {
        logger.error(`serving error: ${err.message}`);
        return new Response("Internal Server Error\n", { status: 500 });
      },
    });
  } catch (err) {
    const message = `failed to listen on ${bindAddress}:${options.port}: ${(err as Error).message}`;
    throw new ServingError(message, { cause: err });
  }
  const port = server.port ?? options.port;
  const url = `https://${dialable(bindAddress)}:${port}`;
  logger.info(`Serving securely on ${bindAddress.includes(":") ? `[${bindAddress}]` : bindAddress}:${port}`);
  return {
    url,
    port,
    selfSigned: tls.selfSigned,
    stop: async () => {
      await server.stop(true);
    },
  };
};
