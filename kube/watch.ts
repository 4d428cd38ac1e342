/**
 * A streaming watch: newline-delimited JSON events over one chunked response.
 *
 * Ends quietly when the server closes the stream or the caller's signal aborts. Throws a `KubeApiError` for an
 * HTTP error answer (410 included), for an `ERROR` event (status = the Status `code`, so an expired
 * resourceVersion is a 410 either way), for a broken connection (status 0), and when no bytes arrive for
 * `idleTimeoutMs` (status 0, reason `WatchIdleTimeout`): a half-open TCP connection would otherwise hang forever.
 * Leaving the loop early (`break`) aborts the request, which closes the connection.
 */
import { KubeApiError, type WatchEvent } from "./client-types.ts";
import { ClientReason, type Query, type Requester } from "./http.ts";
import type { Status } from "./objects.ts";

export interface WatchStreamOptions {
  readonly idleTimeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export async function* watchStream<T>(
  requester: Requester,
  path: string,
  query: Query,
  opts: WatchStreamOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const ac = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, ac.signal]) : ac.signal;
  const idleMs = opts.idleTimeoutMs ?? 0;
  const idleError = new KubeApiError(`watch ${path}: no data for ${idleMs} ms; the connection is presumed dead`, {
    status: 0,
    reason: ClientReason.WatchIdleTimeout,
    code: "ETIMEDOUT",
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const disarm = () => clearTimeout(timer);
  const arm = () => {
    disarm();
    if (idleMs > 0) timer = setTimeout(() => ac.abort(idleError), idleMs);
  };
  // Which failure it was decides between ending quietly (the caller aborted) and throwing.
  const settle = (err: unknown): void => {
    if (opts.signal?.aborted) return;
    if (ac.signal.aborted) throw idleError;
    if (err instanceof KubeApiError) throw err;
    const code = (err as { code?: unknown })?.code;
    throw new KubeApiError(
      `watch ${path}: connection broken: ${(err as Error)?.message ?? String(err)}`,
      { status: 0, reason: ClientReason.TransportFailed, code: typeof code === "string" ? code : undefined },
      { cause: err },
    );
  };

  try {
    let res: Response;
    try {
      res = await requester.send({ method: "GET", path, query, signal, stream: true, admitted: arm });
    } catch (err) {
      return settle(err);
    }
    if (!res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      arm();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        return settle(err);
      }
      // Paused while the consumer handles events: a slow handler is not a dead connection.
      disarm();
      if (chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        const event = line ? decodeEvent<T>(path, line) : undefined;
        if (event) yield event;
        nl = buf.indexOf("\n");
      }
    }
    const tail = (buf + decoder.decode()).trim();
    if (tail) {
      // A clean close ends on a newline; a partial last line means the connection died mid-event.
      const event = decodeEvent<T>(path, tail, true);
      if (event) yield event;
    }
  } finally {
    disarm();
    ac.abort();
  }
}

const EVENT_TYPES = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);

/** One line to an event; `ERROR` events throw. Unknown event types are skipped (undefined). */
export function decodeEvent<T>(path: string, line: string, truncated = false): WatchEvent<T> | undefined {
  let ev: { type?: unknown; object?: unknown };
  try {
    ev = JSON.parse(line);
  } catch (err) {
    throw new KubeApiError(
      truncated ? `watch ${path}: stream ended inside an event` : `watch ${path}: a line is not JSON`,
      { status: 0, reason: truncated ? ClientReason.TransportFailed : ClientReason.WatchDecode },
      { cause: err },
    );
  }
  if (typeof ev?.type !== "string" || typeof ev.object !== "object" || ev.object === null) {
    throw new KubeApiError(`watch ${path}: a line is not a watch event`, {
      status: 0,
      reason: ClientReason.WatchDecode,
    });
  }
  if (ev.type === "ERROR") {
    const s = ev.object as Status;
    const code = typeof s.code === "number" && s.code > 0 ? s.code : 500;
    const reason = s.reason || (code === 410 ? "Expired" : "InternalError");
    throw new KubeApiError(`watch ${path}: ERROR event ${code} ${reason}: ${s.message ?? ""}`, {
      status: code,
      reason,
    });
  }
  if (!EVENT_TYPES.has(ev.type)) return undefined;
  return ev as WatchEvent<T>;
}
