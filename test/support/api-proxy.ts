/**
 * A recording HTTP proxy in front of the API emulator or the simulated cloud, one per manager under test: the
 * manager's kubeconfig or cloud-config points at the proxy, so every request it sends is attributed to it, and a
 * write is seen the moment it is sent (not only once answered), without any help from production code. Watches are
 * streamed through unchanged. Requests the test names can be held back before they are forwarded (a server under
 * load), which keeps a manager's writes in flight when it is paused.
 */
import { chmod } from "node:fs/promises";
import type { Server } from "bun";
import { isWriteMethod } from "../../kube/write-fence.ts";

/** One request as the proxy saw it, in ms since the epoch on this machine's clock (the managers' clock too). */
export interface ProxiedRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly write: boolean;
  /** When the manager's request reached the proxy: the moment it was sent, give or take a loopback hop. */
  readonly receivedAt: number;
  /** When the API server's answer (its headers) came back; 0 while in flight; -1 when it never came. */
  answeredAt: number;
  status: number;
}

export interface ApiProxy {
  readonly url: string;
  /** Every request so far, oldest first (live records: an in-flight one is filled in when answered). */
  requests(): readonly ProxiedRequest[];
  /** The writes so far (every method but GET, HEAD and OPTIONS). */
  writes(): readonly ProxiedRequest[];
  stop(): Promise<void>;
}

export interface ApiProxyOptions {
  /** Milliseconds to hold a request before forwarding it (0: none); asked per request. */
  readonly delayMs?: (method: string, path: string) => number;
}

/** Headers of one hop's framing (Bun sets its own; `fetch` has already decoded a compressed body). */
const HOP_HEADERS = ["connection", "content-length", "transfer-encoding", "content-encoding", "keep-alive"];

const withoutHopHeaders = (from: Headers): Headers => {
  const h = new Headers(from);
  for (const name of HOP_HEADERS) h.delete(name);
  return h;
};

export function startApiProxy(target: string, opts: ApiProxyOptions = {}): ApiProxy {
  const log: ProxiedRequest[] = [];
  const forward = async (req: Request, server: Server<undefined>): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname + url.search;
    const record: ProxiedRequest = {
      method: req.method,
      path,
      write: isWriteMethod(req.method),
      receivedAt: Date.now(),
      answeredAt: 0,
      status: 0,
    };
    log.push(record);
    // Watches outlive any idle timeout.
    if (req.method === "GET") server.timeout(req, 0);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    const delay = opts.delayMs?.(req.method, path) ?? 0;
    if (delay > 0) await Bun.sleep(delay);
    try {
      const res = await fetch(target + path, {
        method: req.method,
        headers: withoutHopHeaders(req.headers),
        body,
        redirect: "manual",
      });
      record.answeredAt = Date.now();
      record.status = res.status;
      return new Response(res.body, { status: res.status, headers: withoutHopHeaders(res.headers) });
    } catch (err) {
      record.answeredAt = -1;
      return new Response(`proxy: ${(err as Error).message}`, { status: 502 });
    }
  };
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: forward });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: () => log,
    writes: () => log.filter((r) => r.write),
    stop: () => server.stop(true),
  };
}

/**
 * Writes a copy of the configuration `from` (a kubeconfig, a cloud-config) to `to` (mode 0600) with the server URL
 * `server` replaced by the proxy's.
 */
export async function writeProxiedConfig(from: string, to: string, server: string, proxy: ApiProxy): Promise<void> {
  const text = await Bun.file(from).text();
  if (!text.includes(server)) throw new Error(`${from} does not name the server ${server}`);
  await Bun.write(to, text.replaceAll(server, proxy.url));
  await chmod(to, 0o600);
}
