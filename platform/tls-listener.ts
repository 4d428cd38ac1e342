/**
 * An HTTPS listener whose certificate follows its files, shared by the manager's secure port (`serving.ts`) and the
 * webhook port (`--webhook-secure-port`).
 *
 * A certificate from files is reloaded when the files change, as upstream's dynamic serving certificate does: the
 * files are read when their folder changes and every `certReloadIntervalMs` (default one minute), and on a change a
 * listener with the new pair is opened on the same port (`SO_REUSEPORT`) before the old one closes, so no
 * connection is refused. A pair that does not load (a rotation half done) keeps the old one. Without files, a
 * self-signed certificate for localhost/127.0.0.1 is generated in memory.
 */
import { type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";
import type { ConsolaInstance } from "consola";
import { type Now, type SetTimer, systemClock } from "../kube/clock.ts";
import { loadServingCert, type ServingCert } from "./self-signed.ts";
import type { TlsPolicy } from "./tls-policy.ts";

export interface TlsListenerOptions {
  /** Default `0.0.0.0`. */
  readonly bindAddress?: string;
  /** 0 = a random free port. */
  readonly port: number;
  /** Both or neither; neither ⇒ an in-memory self-signed certificate for localhost/127.0.0.1. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  /** Listen with SO_REUSEPORT from the start, so another process may listen on the port too. */
  readonly reusePort?: boolean;
  /** `--tls-min-version` and `--tls-cipher-suites` as Bun takes them (`tls-policy.ts`). */
  readonly tls?: TlsPolicy;
  /** Answers every request; a throw is answered 500 and logged. */
  readonly handle: (request: Request) => Response | Promise<Response>;
  readonly logger: ConsolaInstance;
  /** How often certificate files are checked for a change; default 60s. */
  readonly certReloadIntervalMs?: number;
  readonly now: Now;
  /** For the certificate reload; the real timer by default. */
  readonly setTimer?: SetTimer;
}

export interface TlsListener {
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

export const listenTls = async (options: TlsListenerOptions): Promise<TlsListener> => {
  const { logger } = options;
  const bindAddress = options.bindAddress ?? "0.0.0.0";
  const tls = await loadServingCert({ certFile: options.certFile, keyFile: options.keyFile, now: options.now });
  const fromFiles = !tls.selfSigned;
  const listen = (pair: ServingCert, port: number) =>
    Bun.serve({
      hostname: bindAddress,
      port,
      // A reloadable certificate needs a second listener on the same port for a moment.
      reusePort: fromFiles || (options.reusePort ?? false),
      tls: { cert: pair.cert, key: pair.key, ...options.tls },
      fetch: async (request) => {
        const started = options.now();
        try {
          const response = await options.handle(request);
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
