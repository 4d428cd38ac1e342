/**
 * A typed client for a cloud's HTTP API on `fetch`, for providers to build their `api/` on (docs/writing-a-provider.md):
 * base URL and auth headers, a timeout per attempt on top of the caller's signal, retries (retry-policy.ts), the
 * provider's declared rate limit as a client-side token bucket, the cloud's rate-limit headers, page iteration,
 * valibot schemas for request bodies and answers, typed errors (errors.ts), and per-call metrics (../metrics.ts).
 *
 * One call is one metric observation: its duration includes the retries and the waits between them, since that is
 * what the controller waited for; each 429 the kit waited out counts as throttled.
 */
import type { ConsolaInstance } from "consola";
import type { Registry } from "prom-client";
import * as v from "valibot";
import { issuesOf } from "../../../config/validate.ts";
import { abortableSleep, type Now, type Sleep } from "../../../kube/clock.ts";
import { createTokenBucket, type RateLimiter } from "../../../kube/rate-limiter.ts";
import type { CallContext, RateLimit } from "../../cloud.ts";
import { RetryError } from "../../errors.ts";
import { instrumented, type ProviderApiMetrics, providerApiMetrics } from "../metrics.ts";
import { CloudApiError, CloudApiSchemaError, redact } from "./errors.ts";
import { type Page, walkPages } from "./pages.ts";
import { RateLimitPacer, retryAfterMs } from "./rate-limit-headers.ts";
import {
  type AttemptResult,
  decideRetry,
  defaultRetryPolicy,
  idempotentByMethod,
  type RetryPolicy,
} from "./retry-policy.ts";
import { send } from "./send.ts";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface CloudApiClientOptions {
  /** Starts every error message: `sandbox/api` → `sandbox/api.getMachine: …`. */
  readonly name: string;
  /** The provider's name, for the metrics (`cloudprovider_<provider>_api_…`). */
  readonly provider: string;
  /** The API's root, e.g. `https://api.hetzner.cloud/v1`; request paths are appended to it. */
  readonly baseUrl: string;
  /**
   * The headers that authenticate a request, asked for on every attempt (so a token may rotate). Their values are
   * secrets: the kit never puts them in a message or a log line, and scrubs them from what the cloud echoes.
   * Credentials belong here, never in a path or query.
   */
  readonly auth?: () => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
  /** Per attempt, on top of the caller's signal. */
  readonly timeoutMs: number;
  /**
   * The longest answer one call may get, in bytes; a longer one is refused with a `CloudApiAnswerTooLargeError`
   * and its rest left unread. Default `DEFAULT_MAX_ANSWER_BYTES`; a request may set its own.
   */
  readonly maxAnswerBytes?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** The provider's declared `CloudProvider.rateLimit`: every attempt takes a token first. Absent ⇒ unlimited. */
  readonly rateLimit?: RateLimit | undefined;
  /**
   * The cloud's error code and message from an error answer: its JSON body (`undefined` when empty) and status
   * line, for clouds whose reason phrase says why; default the body's `{"error": {"code", "message"}}`.
   */
  readonly errorOf?: (
    body: unknown,
    answer: { readonly status: number; readonly statusText: string },
  ) => { readonly code: string; readonly message: string } | undefined;
  /** Where the per-call metrics go (`ProviderFactoryInput.metrics`); absent ⇒ a registry of their own. */
  readonly metrics?: Registry | undefined;
  readonly userAgent?: string;
  /** Retries are logged at debug level. */
  readonly logger?: ConsolaInstance;
  readonly fetch?: typeof fetch;
  /** Milliseconds since the epoch (Retry-After dates, rate-limit resets, durations). */
  readonly now?: Now;
  readonly sleep?: Sleep;
  /** Uniform in [0, 1), for the back-off's jitter. */
  readonly random?: () => number;
}

/**
 * What a provider's client takes from its own caller and hands to the kit unchanged: where the metrics go, the
 * declared rate limit, the retry policy, and what tests inject. Provider clients' options extend it.
 */
export type CloudApiClientTuning = Pick<
  CloudApiClientOptions,
  "metrics" | "rateLimit" | "retry" | "maxAnswerBytes" | "logger" | "fetch" | "now" | "sleep" | "random"
>;

/**
 * The tuning a provider's transport options carry, for its `CloudApiClient` (`{ ...fixed, ...tuningOf(o) }`): the
 * keys `o` sets, without those it leaves `undefined`, so each keeps the client's default. `rateLimit` is the
 * caller's to default.
 */
const TUNING_KEYS = ["metrics", "retry", "maxAnswerBytes", "logger", "fetch", "now", "sleep", "random"] as const;

export function tuningOf(o: CloudApiClientTuning): Omit<CloudApiClientTuning, "rateLimit"> {
  const picked = TUNING_KEYS.filter((key) => o[key] !== undefined).map((key) => [key, o[key]]);
  return Object.fromEntries(picked) as Omit<CloudApiClientTuning, "rateLimit">;
}

/**
 * The default bound on one answer: 16 MiB. Generous for real listings — a page of 50 Hetzner servers is about
 * 250 KB, Proxmox's `/cluster/resources` for 10 000 guests a few MB — and small enough that reading it (several
 * times its size while parsed) fits a pod's memory limit.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface CloudRequest<S extends v.GenericSchema> {
  /** The metric label and the error prefix's last part: `getMachine`. */
  readonly operation: string;
  readonly method: Method;
  /** Appended to `baseUrl` (`/machines/m-1`), or a full URL under it (a `Link` header's next page). */
  readonly path: string;
  /** Added to the URL; `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Checks `body` before anything is sent; its output is what is sent. */
  readonly bodySchema?: v.GenericSchema;
  /** The answer's schema; its output is what the call returns. An empty answer (204) is read as `null`. */
  readonly answer: S;
  /** A 404 is an answer: the call returns `undefined`. */
  readonly notFound?: boolean;
  /** Whether repeating the request after an ambiguous failure is harmless; default by method (retry-policy.ts). */
  readonly idempotent?: boolean;
  /** This call's bound on its answer, in bytes, instead of the client's `maxAnswerBytes`. */
  readonly maxAnswerBytes?: number;
}

/** Used when a 429 outlasts the retries without saying how long to wait. */
const DEFAULT_RETRY_AFTER_MS = 1000;

export class CloudApiClient {
  readonly #o: CloudApiClientOptions;
  readonly #base: string;
  readonly #policy: RetryPolicy;
  readonly #metrics: ProviderApiMetrics;
  readonly #limiter: RateLimiter;
  readonly #pacer: RateLimitPacer;
  readonly #now: Now;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  /** The auth header values last sent, scrubbed from every message. */
  #secrets: readonly string[] = [];

  constructor(options: CloudApiClientOptions) {
    this.#o = options;
    this.#base = options.baseUrl.replace(/\/+$/, "");
    this.#policy = { ...defaultRetryPolicy, ...options.retry };
    this.#metrics = providerApiMetrics(options.metrics, options.provider);
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
    const { qps = 0, burst = 1 } = options.rateLimit ?? {};
    this.#limiter = createTokenBucket({ qps, burst, now: this.#now, sleep: this.#sleep });
    this.#pacer = new RateLimitPacer(this.#now);
  }

  /** One call: the answer's parsed output, or `undefined` for a 404 when `notFound` allows it. */
  request<S extends v.GenericSchema>(
    ctx: CallContext,
    req: CloudRequest<S> & { readonly notFound: true },
  ): Promise<v.InferOutput<S> | undefined>;
  request<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>): Promise<v.InferOutput<S>>;
  async request<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>) {
    return (await this.#call(ctx, req))?.answer;
  }

  /**
   * One call with the answer's headers, for an API that answers in a header (Keystone's token is its
   * `X-Subject-Token`). A 404 throws; `notFound` has no meaning here.
   */
  async exchange<S extends v.GenericSchema>(
    ctx: CallContext,
    req: CloudRequest<S>,
  ): Promise<{ readonly answer: v.InferOutput<S>; readonly headers: Headers }> {
    const page = await this.#call(ctx, { ...req, notFound: false });
    if (!page) throw new Error(`${this.#o.name}.${req.operation}: not found`);
    return page;
  }

  /**
   * Every page of a listing, each one call: `request(cursor)` builds the call for a cursor (`undefined` for the
   * first page), and `next` reads the following cursor from a page (`null`/`undefined` after the last).
   */
  pages<S extends v.GenericSchema, C>(
    ctx: CallContext,
    request: (cursor: C | undefined) => CloudRequest<S>,
    next: (page: Page<v.InferOutput<S>>) => C | null | undefined,
  ): AsyncGenerator<v.InferOutput<S>, void, undefined> {
    const fetchPage = async (cursor: C | undefined): Promise<Page<v.InferOutput<S>>> => {
      const req = request(cursor);
      const page = await this.#call(ctx, req);
      if (!page) throw new Error(`${this.#o.name}.${req.operation}: a page was not found`);
      return page;
    };
    return walkPages(fetchPage, next, `${this.#o.name}.${request(undefined).operation}`);
  }

  #call<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>) {
    return instrumented(this.#metrics, req.operation, () => this.#retrying(ctx, req), this.#now);
  }

  async #retrying<S extends v.GenericSchema>(
    ctx: CallContext,
    req: CloudRequest<S>,
  ): Promise<Page<v.InferOutput<S>> | undefined> {
    const op = `${this.#o.name}.${req.operation}`;
    const body = req.body === undefined ? undefined : JSON.stringify(this.#checkBody(op, req));
    const url = this.#url(op, req);
    const idempotent = req.idempotent ?? idempotentByMethod(req.method);
    for (let retries = 0; ; retries++) {
      await this.#takeTurn(ctx, op);
      const maxAnswerBytes = req.maxAnswerBytes ?? this.#o.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
      const transport = await this.#transport(body);
      const attempt = await send({ op, method: req.method, url, body, ctx, maxAnswerBytes, ...transport });
      let failure: Failure;
      if (attempt.kind === "answer") {
        const { response, text } = attempt;
        this.#pacer.observe(response.headers);
        if (response.ok) return { answer: this.#parse(op, req.answer, text), headers: response.headers };
        if (response.status === 404 && req.notFound) return undefined;
        failure = this.#answerFailure(op, response, text);
      } else {
        if (attempt.aborted) throw attempt.error(retries + 1);
        failure = attempt;
      }
      const decision = decideRetry(this.#policy, failure.result, retries, idempotent, this.#random);
      if (!decision.retry) throw this.#finalError(op, failure, retries + 1);
      if (isThrottle(failure.result)) this.#metrics.throttled(req.operation);
      const next = `attempt ${retries + 2} of ${this.#policy.maxRetries + 1} in ${decision.waitMs}ms`;
      this.#o.logger?.debug(`${failure.error(retries + 1).message}; ${next}`);
      await this.#sleep(decision.waitMs, ctx.signal);
      if (ctx.signal.aborted) throw new Error(`${op}: aborted while waiting to retry`, { cause: ctx.signal.reason });
    }
  }

  /** Waits for the client's token bucket and for the pace the cloud's rate-limit headers set. */
  async #takeTurn(ctx: CallContext, op: string): Promise<void> {
    try {
      await this.#limiter.wait(ctx.signal);
    } catch (err) {
      throw new Error(`${op}: aborted while waiting for the client-side rate limit`, { cause: err });
    }
    const waitMs = this.#pacer.reserve(this.#policy.maxWaitMs);
    if (waitMs > this.#policy.maxWaitMs) {
      throw new RetryError(`${op}: the cloud's rate-limit budget is spent; retry after ${waitMs}ms`, waitMs);
    }
    if (waitMs <= 0) return;
    await this.#sleep(waitMs, ctx.signal);
    if (ctx.signal.aborted) throw new Error(`${op}: aborted while pacing to the cloud's rate limit`);
  }

  /** Headers, secrets, timeout and fetch for one attempt; auth is asked for each time. */
  async #transport(body: string | undefined) {
    const auth = (await this.#o.auth?.()) ?? {};
    const secrets = Object.values(auth);
    this.#secrets = secrets;
    const headers = {
      accept: "application/json",
      ...(body !== undefined && { "content-type": "application/json" }),
      ...(this.#o.userAgent !== undefined && { "user-agent": this.#o.userAgent }),
      ...auth,
    };
    return { headers, secrets, timeoutMs: this.#o.timeoutMs, fetch: this.#o.fetch ?? fetch };
  }

  #checkBody<S extends v.GenericSchema>(op: string, req: CloudRequest<S>): unknown {
    if (!req.bodySchema) return req.body;
    const result = v.safeParse(req.bodySchema, req.body, { abortEarly: false });
    if (!result.success) throw new CloudApiSchemaError(op, "request", issuesOf(result.issues));
    return result.output;
  }

  #parse<S extends v.GenericSchema>(op: string, schema: S, text: string): v.InferOutput<S> {
    let json: unknown = null;
    if (text.trim() !== "") {
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new CloudApiSchemaError(op, "answer", [{ path: "", message: "not JSON" }], { cause: err });
      }
    }
    const result = v.safeParse(schema, json, { abortEarly: false });
    if (!result.success) throw new CloudApiSchemaError(op, "answer", issuesOf(result.issues));
    return result.output;
  }

  /** The URL of a request: under the base URL, never elsewhere (the auth headers go with it). */
  #url<S extends v.GenericSchema>(op: string, req: CloudRequest<S>): string {
    const absolute = /^[a-z][a-z0-9+.-]*:/i.test(req.path);
    const text = absolute ? req.path : `${this.#base}${req.path.startsWith("/") ? "" : "/"}${req.path}`;
    if (absolute && !(text === this.#base || text.startsWith(`${this.#base}/`) || text.startsWith(`${this.#base}?`))) {
      throw new Error(redact(`${op}: ${text} is not under ${this.#base}; the credentials stay home`, this.#secrets));
    }
    const url = new URL(text);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  #answerFailure(op: string, response: Response, text: string): Failure {
    const cloud = this.#errorOf(text, response);
    const code = cloud?.code ?? (response.statusText || "Error");
    const detail = redact(cloud?.message ?? (text.slice(0, 200) || "(no body)"), this.#secrets);
    const retryAfter = retryAfterMs(response.headers.get("retry-after"), this.#now);
    return {
      result: {
        kind: "answer",
        status: response.status,
        code,
        ...(retryAfter !== undefined && { retryAfterMs: retryAfter }),
      },
      error: (attempts) => new CloudApiError(op, response.status, code, detail, attempts),
    };
  }

  #errorOf(text: string, response: Response): { readonly code: string; readonly message: string } | undefined {
    let body: unknown;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      return undefined; // Not the cloud's JSON (a proxy's page, a crash): the status and the text tell instead.
    }
    return (this.#o.errorOf ?? defaultErrorOf)(body, { status: response.status, statusText: response.statusText });
  }

  /** A 429 that outlasts the retries is a `RetryError` for the controller to reschedule by; the rest as they are. */
  #finalError(op: string, failure: Failure, attempts: number): Error {
    const error = failure.error(attempts);
    if (!isThrottle(failure.result)) return error;
    const waitMs = failure.result.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    const message = `${op}: the cloud is rate limiting (${error.message.slice(op.length + 2)}); retry after ${waitMs}ms`;
    return new RetryError(message, waitMs, { cause: error });
  }
}

/** How an attempt failed, and the error it becomes. */
type Failure = { readonly result: AttemptResult; readonly error: (attempts: number) => Error };

const isThrottle = (r: AttemptResult): r is Extract<AttemptResult, { kind: "answer" }> =>
  r.kind === "answer" && r.status === 429;

/** `{"error": {"code": "…", "message": "…"}}`: the shape hcloud, the sandbox and many other clouds answer with. */
export function defaultErrorOf(body: unknown): { code: string; message: string } | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== "string") return undefined;
  return { code: error.code, message: typeof error.message === "string" ? error.message : "" };
}
