/**
 * One request to the API server: rate limiting, credentials, Bun `fetch` with the kubeconfig's TLS, and every
 * failure turned into a `KubeApiError` (HTTP errors with the Status reason and Retry-After; transport failures as
 * status 0 with the system code). An abort by the caller's own signal is rethrown as the signal's reason.
 */

import { redactUrlCredentials } from "../net/url-credentials.ts";
import { KubeApiError } from "./client-types.ts";
import type { Now } from "./clock.ts";
import { hostLabel, type KubeClientMetrics } from "./metrics.ts";
import type { Status } from "./objects.ts";
import type { Admission, Pacer } from "./pacing.ts";
import type { Transport } from "./transport.ts";
import { type FencedWrite, isRefused, isWriteMethod, type WriteFence } from "./write-fence.ts";

/** `KubeApiError.reason` values for failures that never got an answer (status 0). */
export const ClientReason = {
  /** Refused, reset, DNS, TLS verification… `code` carries the system code. */
  TransportFailed: "TransportFailed",
  /** The client-side request timeout fired. */
  RequestTimeout: "RequestTimeout",
  /** A watch received no bytes for its idle timeout: the connection is presumed dead. */
  WatchIdleTimeout: "WatchIdleTimeout",
  /** The watch stream carried something that is not a watch event. */
  WatchDecode: "WatchDecode",
  /** The credentials could not be obtained (an exec plugin failed, a token file vanished). */
  CredentialsUnavailable: "CredentialsUnavailable",
} as const;

/**
 * Tries of one request whose pacer says it may go again (pacing.ts: API Priority and Fairness rejected it, before it
 * ran, so any verb may); client-go's default `maxRetries` for a 429.
 */
export const APF_REJECTION_TRIES = 10;

export const isWatchIdleTimeout = (err: unknown): boolean =>
  err instanceof KubeApiError && err.reason === ClientReason.WatchIdleTimeout;

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface HttpRequest {
  readonly method: string;
  /** Absolute path below the server URL, starting with `/`. */
  readonly path: string;
  readonly query?: Query;
  /** Sent as JSON unless already a string. */
  readonly body?: unknown;
  readonly contentType?: string;
  /** The `Accept` header, `application/json` unless given. */
  readonly accept?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** A streaming response (watch): no client-side request timeout; the caller guards it. */
  readonly stream?: boolean;
  /** Called once the rate limiter has admitted the request (a watch starts its idle timer here). */
  readonly admitted?: () => void;
}

export interface Requester {
  /** Resolves with a 2xx response (the body unread); throws `KubeApiError` or the caller's abort reason. */
  send(req: HttpRequest): Promise<Response>;
  /** Reads a 2xx response body, with the same error mapping as `send`. */
  text(req: HttpRequest, res: Response): Promise<string>;
  /** Reads a 2xx response body as JSON (empty ⇒ undefined). */
  json<T>(req: HttpRequest, res: Response): Promise<T>;
}

export interface RequesterOptions {
  readonly userAgent: string;
  /** Admits each request (pacing.ts: the token bucket, or the API server's flow control) and hears its answer. */
  readonly pacer: Pacer;
  readonly now: Now;
  /** Client-side timeout of a non-streaming request, body included. */
  readonly requestTimeoutMs: number;
  /** Asked right before each write goes on the wire (write-fence.ts); absent ⇒ writes are not fenced. */
  readonly fence?: WriteFence | undefined;
  /** client-go's `rest_client_*` metrics (metrics.ts); absent ⇒ not recorded. */
  readonly metrics?: KubeClientMetrics | undefined;
}

export function createRequester(transport: Transport, opts: RequesterOptions): Requester {
  /** A fenced write listens to its fence instead of the caller (write-fence.ts: once sent it runs to its answer). */
  const signalFor = (req: HttpRequest, write: FencedWrite | undefined): AbortSignal | undefined => {
    const own = write ? write.signal : req.signal;
    if (req.stream || !(opts.requestTimeoutMs > 0)) return own;
    const timeout = AbortSignal.timeout(opts.requestTimeoutMs);
    return own ? AbortSignal.any([own, timeout]) : timeout;
  };
  const fail = (req: HttpRequest, url: string, err: unknown): never => {
    if (req.signal?.aborted) throw req.signal.reason;
    if (err instanceof KubeApiError) throw err;
    throw transportError(req.method, url, err);
  };

  const text = async (req: HttpRequest, res: Response): Promise<string> => {
    try {
      return await res.text();
    } catch (err) {
      return fail(req, buildUrl(transport.server, req.path, req.query), err);
    }
  };

  /**
   * The request once paced: `admission` hears its answer at the headers (a throw before any answer: the caller's);
   * `heard.again` is set when the pacer lets a failed request go again.
   */
  const sendAdmitted = async (
    req: HttpRequest,
    host: string,
    admission: Admission,
    heard: { again: boolean },
  ): Promise<Response> => {
    req.admitted?.();
    let settings: Awaited<ReturnType<Transport["settings"]>>;
    try {
      settings = await transport.settings(req.signal);
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason;
      throw new KubeApiError(
        `${req.method} ${req.path}: credentials from ${transport.source}: ${(err as Error).message}`,
        { status: 0, reason: ClientReason.CredentialsUnavailable },
        { cause: err },
      );
    }
    const url = buildUrl(transport.server, req.path, req.query);
    const headers: Record<string, string> = {
      ...settings.headers,
      Accept: req.accept ?? "application/json",
      "User-Agent": opts.userAgent,
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === "string" ? req.body : JSON.stringify(req.body);
      headers["Content-Type"] = req.contentType ?? "application/json";
    }
    // Synchronous from here to `fetch`: nothing may run between the fence's check and the request leaving.
    const write = opts.fence && isWriteMethod(req.method) ? opts.fence.enter(`${req.method} ${req.path}`) : undefined;
    const signal = signalFor(req, write);
    let res: Response;
    const sentAt = opts.now();
    // Answered, or refused before reaching the server; otherwise a write may yet land (see FencedWrite.end).
    let settled = false;
    try {
      res = await fetch(url, {
        method: req.method,
        headers,
        ...(body !== undefined && { body }),
        ...(settings.tls && { tls: settings.tls }),
        ...(settings.proxy && { proxy: settings.proxy }),
        ...(signal && { signal }),
        redirect: "manual",
      });
      settled = true;
    } catch (err) {
      settled = isRefused(err);
      opts.metrics?.request(req.method, host, undefined, (opts.now() - sentAt) / 1000);
      if (write?.signal.aborted) throw write.signal.reason;
      return fail(req, url, err);
    } finally {
      write?.end(settled);
    }
    opts.metrics?.request(req.method, host, res.status, (opts.now() - sentAt) / 1000);
    heard.again = answered(admission, req, res) && !req.stream;
    if (res.ok) return res;
    if (res.status === 401) transport.unauthorized();
    let text = "";
    try {
      text = await res.text();
    } catch {
      // the status line is the answer; a broken error body only loses the message
    }
    const who = res.status === 401 || res.status === 403 ? `${transport.identity} from ${transport.source}` : undefined;
    throw errorFromAnswer(req.method, req.path, res.status, res.headers.get("retry-after"), text, opts.now, who);
  };

  return {
    async send(req) {
      const host = hostLabel(transport.server);
      for (let tries = 1; ; tries++) {
        const waitFrom = opts.now();
        const admission = await opts.pacer.admit(req.signal);
        opts.metrics?.rateLimited(req.method, host, (opts.now() - waitFrom) / 1000);
        const heard = { again: false };
        try {
          return await sendAdmitted(req, host, admission, heard);
        } catch (err) {
          if (!heard.again || tries >= APF_REJECTION_TRIES) throw err;
        } finally {
          admission.done();
        }
      }
    },
    text,
    async json<T>(req: HttpRequest, res: Response): Promise<T> {
      const body = await text(req, res);
      return (body === "" ? undefined : JSON.parse(body)) as T;
    },
  };
}

/**
 * The pacer hears every answer at its headers; a watch's says nothing of flow control (APF leaves watches alone).
 * True when the pacer lets the request go again.
 */
function answered(admission: Admission, req: HttpRequest, res: Response): boolean {
  return admission.done({ status: res.status, headers: res.headers, longRunning: req.stream === true });
}

export function buildUrl(server: string, path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return `${server}${path}${qs ? `?${qs}` : ""}`;
}

/** Reasons for answers without a Status body (proxies, load balancers). */
const REASON_BY_STATUS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/**
 * An HTTP error answer as a `KubeApiError`; Retry-After from the header (seconds or a date), else the Status.
 * `who` (the credentials used) is added for a 401 or 403, which an operator cannot act on without it.
 */
export function errorFromAnswer(
  method: string,
  path: string,
  httpStatus: number,
  retryAfter: string | null,
  body: string,
  now: Now,
  who?: string,
): KubeApiError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(body);
    if (parsed?.kind === "Status") status = parsed;
  } catch {
    // HTML or plain text from something in front of the API server
  }
  const reason = status?.reason || REASON_BY_STATUS[httpStatus] || "Unknown";
  const message = status?.message || body.trim().slice(0, 200) || `HTTP ${httpStatus}`;
  const fromStatus = status?.details?.retryAfterSeconds;
  const retryAfterMs = parseRetryAfter(retryAfter, now) ?? (fromStatus !== undefined ? fromStatus * 1000 : undefined);
  return new KubeApiError(`${method} ${path}: ${httpStatus} ${reason}: ${message}${who ? ` (as ${who})` : ""}`, {
    status: httpStatus,
    reason,
    retryAfterMs,
  });
}

/** `Retry-After: <seconds>` or `Retry-After: <HTTP-date>` in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Now): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now());
}

function transportError(method: string, rawUrl: string, err: unknown): KubeApiError {
  const url = redactUrlCredentials(rawUrl);
  const e = err as { name?: string; code?: unknown; message?: string };
  if (e?.name === "TimeoutError") {
    return new KubeApiError(
      `${method} ${url}: no answer within the client timeout`,
      { status: 0, reason: ClientReason.RequestTimeout, code: "ETIMEDOUT" },
      { cause: err },
    );
  }
  const code = typeof e?.code === "string" ? e.code : undefined;
  const tlsHint = code && /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO/.test(code) ? " (TLS verification failed)" : "";
  return new KubeApiError(
    `${method} ${url}: ${code ?? "request failed"}${tlsHint}: ${redactUrlCredentials(e?.message ?? String(err))}`,
    { status: 0, reason: ClientReason.TransportFailed, code },
    { cause: err },
  );
}
