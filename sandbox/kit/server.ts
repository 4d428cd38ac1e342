/**
 * Serving an emulator's handler on 127.0.0.1 (or the host given), on a free port unless told one: the base URL
 * its clients are pointed at, and a stop that closes open connections.
 */
export interface ServeOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number | undefined;
  readonly hostname?: string | undefined;
  readonly fetch: (request: Request) => Response | Promise<Response>;
}

export interface Served {
  /** `http://127.0.0.1:<port>`, with an IPv6 host in brackets. */
  readonly base: string;
  stop(): Promise<void>;
}

export function serveEmulator(o: ServeOptions): Served {
  const server = Bun.serve({ hostname: o.hostname ?? "127.0.0.1", port: o.port ?? 0, fetch: o.fetch });
  const host = server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname;
  return {
    base: `http://${host}:${server.port}`,
    async stop() {
      await server.stop(true);
    },
  };
}
