/**
 * Serving an emulator's handler on 127.0.0.1 (or the host given), on a free port unless told one: the base URL
 * its clients are pointed at, and a stop that closes open connections.
 */
import type { ConsolaInstance } from "consola";
import type { Random } from "../cloud/random.ts";

/**
 * What every cloud API emulator takes besides its own settings: where it listens, its clock, its randomness and its
 * logger. An emulator's options extend this and say what its clock drives.
 */
export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly hostname?: string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** For injected latency. Default `Bun.sleep`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Seeds generated IDs and the error-rate draws; default 1. */
  readonly seed?: number;
  readonly random?: Random;
  readonly logger?: ConsolaInstance;
}

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
