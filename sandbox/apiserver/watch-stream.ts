/**
 * A watch as an HTTP response: newline-delimited JSON events over a chunked body, ended by `timeoutSeconds`, by
 * the client going away, by fault injection, or when the client reads so slowly that more than `maxQueuedBytes`
 * pile up (the real server also drops watchers that cannot keep up; clients re-watch from their last version).
 */
import type { Obj } from "./json.ts";
import { contentTypeOf, type Format, type Renderer } from "./representation.ts";
import type { ResourceDef } from "./resources.ts";
import { ApiError } from "./status-errors.ts";
import type { WatchEventType, WatchListener } from "./watch-hub.ts";

export interface WatchStreamOptions {
  readonly def: ResourceDef;
  readonly format: Format;
  readonly renderer: Renderer;
  readonly timeoutSeconds: number | undefined;
  readonly signal: AbortSignal;
  readonly maxQueuedBytes: number;
  /** How a 410 at the start is answered: an ERROR event on a 200 stream (real server), or HTTP 410. */
  readonly gone: "event" | "http";
  /** Registers the listener (delivering initial events synchronously); returns the stop function. */
  readonly start: (listener: WatchListener) => () => void;
}

const encoder = new TextEncoder();

/** Starts the watch; throws the start's ApiError when it must be answered as a plain HTTP error. */
export const watchResponse = (opts: WatchStreamOptions): Response => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let stop: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let headers = true;
  let sentAny = false;

  const close = (): void => {
    if (closed) return;
    closed = true;
    stop?.();
    if (timer) clearTimeout(timer);
    opts.signal.removeEventListener("abort", close);
    try {
      controller.close();
    } catch {
      // already closed or errored by the client going away
    }
  };

  const send = (type: WatchEventType, obj: Obj): void => {
    if (closed) return;
    const line = opts.renderer.watchEvent(opts.def, type, obj, opts.format, headers);
    if (type !== "BOOKMARK" && type !== "ERROR") headers = false;
    controller.enqueue(encoder.encode(line));
    sentAny = true;
    if ((controller.desiredSize ?? 0) < -opts.maxQueuedBytes) close();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      cancel: () => close(),
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk?.byteLength ?? 0 },
  );

  const listener: WatchListener = {
    onEvent: send,
    onEnd: (end) => {
      if (end.reason === "expired") send("ERROR", end.status as unknown as Obj);
      close();
    },
  };
  try {
    stop = opts.start(listener);
    if (closed) stop();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 410 && opts.gone === "event")) {
      closed = true;
      throw err;
    }
    send("ERROR", err.toStatus() as unknown as Obj);
    close();
  }
  if (!closed) {
    // Bun.serve finishes the response headers only with the first body byte; a watch with nothing to replay
    // would leave its client waiting for headers. A blank line is whitespace to JSON stream readers.
    if (!sentAny) controller.enqueue(encoder.encode("\n"));
    opts.signal.addEventListener("abort", close);
    if (opts.timeoutSeconds && opts.timeoutSeconds > 0) timer = setTimeout(close, opts.timeoutSeconds * 1000);
  }
  return new Response(stream, {
    status: 200,
    headers: { "content-type": contentTypeOf(opts.format, false), "cache-control": "no-cache, private" },
  });
};
