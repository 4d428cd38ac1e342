/**
 * The manager's HTTPS endpoint (`--bind-address`, `--secure-port`): health checks, Prometheus metrics, with
 * `profiling` the heap's figures and with `heapSnapshot` its snapshots (`/debug/heap/*`, `heap-debug.ts`), and any extra routes (e.g.
 * `/configz`), behind delegated authentication and authorisation (`delegated-auth.ts`).
 *
 * `port: 0` listens on a random free port (tests). The flag's meaning of 0 — no server at all — is the caller's:
 * it simply does not call `startServing`.
 *
 * A certificate from files (`--tls-cert-file`, `--tls-private-key-file`) is reloaded when the files change, as
 * upstream's dynamic serving certificate does: the files are read when their folder changes and every
 * `certReloadIntervalMs` (default one minute), and on a change a listener with the new pair is opened on the same port (`SO_REUSEPORT`) before the
 * old one closes, so no connection is refused. A pair that does not load (a rotation half done) keeps the old one.
 */
import { type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import type { KubeClient } from "../kube/client-types.ts";
import { type Now, type SetTimer, systemClock } from "../kube/clock.ts";
import { createDelegatedAuth, DEFAULT_ALWAYS_ALLOW_PATHS } from "./delegated-auth.ts";
import { type HealthCheck, handleHealth, pingCheck } from "./healthz.ts";
import { heapDebugRoutes } from "./heap-debug.ts";
import { loadServingCert, type ServingCert } from "./self-signed.ts";

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

  const fromFiles = !tls.selfSigned;
  const listen = (pair: ServingCert, port: number) =>
    Bun.serve({
      hostname: bindAddress,
      port,
      // Only a reloadable certificate needs a second listener on the same port for a moment.
      reusePort: fromFiles,
      tls: { cert: pair.cert, key: pair.key },
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

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = listen(tls, options.port);
  } catch (err) {
    const message = `failed to listen on ${bindAddress}:${options.port}: ${(err as Error).message}`;
    throw new ServingError(message, { cause: err });
  }
  const port = server.port ?? options.port;
  const url = `https://${dialable(bindAddress)}:${port}`;
  logger.info(`Serving securely on ${bindAddress.includes(":") ? `[${bindAddress}]` : bindAddress}:${port}`);

  let current = tls;
  let stopped = false;
  let cancelReload = () => {};
  const reloadEvery = options.certReloadIntervalMs ?? 60_000;
  const timer = options.setTimer ?? systemClock.setTimer;
  const checkFiles = async () => {
    let next: ServingCert;
    try {
      next = await loadServingCert({ certFile: options.certFile, keyFile: options.keyFile, now: options.now });
    } catch (err) {
      logger.warn(`keeping the serving certificate: ${(err as Error).message}`);
      return;
    }
    if (stopped || (next.cert === current.cert && next.key === current.key)) return;
    try {
      const replacement = listen(next, port);
      const old = server;
      server = replacement;
      current = next;
      void old.stop(false); // lets requests in flight on the old listener finish
      logger.info(`loaded a new serving certificate from ${options.certFile}`);
    } catch (err) {
      logger.warn(`keeping the serving certificate, the new one does not load: ${(err as Error).message}`);
    }
  };
  // One check at a time; a change noticed during a check runs one more after it.
  let checking: Promise<void> | undefined;
  let again = false;
  const check = () => {
    if (checking) {
      again = true;
      return;
    }
    checking = checkFiles().finally(() => {
      checking = undefined;
      if (again && !stopped) {
        again = false;
        check();
      }
    });
  };
  const schedule = () => {
    cancelReload = timer(() => {
      check();
      if (!stopped) schedule();
    }, reloadEvery);
  };
  const watchers: FSWatcher[] = [];
  if (fromFiles) {
    schedule();
    // Like upstream, a change on disk is noticed at once; the folder is watched, since rotations often replace
    // the files (or a symlink to them) rather than write them in place.
    for (const folder of new Set([options.certFile, options.keyFile].map((f) => dirname(f ?? ".")))) {
      try {
        watchers.push(watch(folder, () => check()));
      } catch (err) {
        logger.warn(
          `cannot watch ${folder}; checking the certificate every ${reloadEvery / 1000}s: ${(err as Error).message}`,
        );
      }
    }
  }

  return {
    url,
    port,
    selfSigned: tls.selfSigned,
    stop: async () => {
      stopped = true;
      cancelReload();
      for (const w of watchers) w.close();
      await checking;
      await server.stop(true);
    },
  };
};
