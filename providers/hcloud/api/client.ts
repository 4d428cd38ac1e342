/**
 * The Hetzner Cloud API transport every `api/*.ts` module of the hcloud provider builds on: the cloud-API kit's
 * client with Bearer auth, `HCLOUD_ENDPOINT`, hcloud's error envelope (field details folded into the message), the
 * codes that mean "nothing was done, try again" (`locked`, `conflict`, `rate_limit_exceeded`), and a declared rate
 * limit inside the project's budget of 3600 requests an hour. The kit reads Hetzner's `RateLimit-*` headers and
 * `Retry-After` by itself and slows down before the budget is spent.
 *
 * Listings go through `listAll`: pages of 50 (the API's maximum), so a project of N servers costs ⌈N/50⌉ calls.
 */
import type { ConsolaInstance } from "consola";
import * as v from "valibot";
import { abortableSleep, type Now, type Sleep } from "../../../kube/clock.ts";
import type { CallContext, RateLimit } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning } from "../../kit/http/client.ts";
import type { RetryPolicy } from "../../kit/http/retry-policy.ts";
import { loggedFetch } from "./request-log.ts";

export const defaultHcloudEndpoint = "https://api.hetzner.cloud/v1";

/**
 * Hetzner's budget is a bucket of 3600 refilled at one request a second. Declaring 0.9 a second with a burst of 10
 * keeps a busy manager at most 3250 an hour, leaving room for `doctor`, kubectl plugins or a second manager
 * during a handover.
 */
export const hcloudRateLimit: RateLimit = { qps: 0.9, burst: 10 };

/** The API's largest page. */
export const PAGE_SIZE = 50;

/** hcloud-go gives a request 30 s; a page of 50 servers is the largest answer we ask for. */
const TIMEOUT_MS = 30_000;

/** The codes Hetzner answers when the request changed nothing and may be sent again as it is. */
const RETRYABLE_CODES = new Set(["locked", "conflict", "rate_limit_exceeded", "maintenance", "resource_unavailable"]);

export const hcloudRetryable: RetryPolicy["retryable"] = ({ code }) => RETRYABLE_CODES.has(code);

const envelope = v.object({
  error: v.object({
    code: v.string(),
    message: v.optional(v.string(), ""),
    details: v.optional(
      v.nullable(
        v.object({
          fields: v.optional(
            v.array(v.object({ name: v.string(), messages: v.optional(v.nullable(v.array(v.string()))) })),
          ),
          limits: v.optional(v.array(v.object({ name: v.string() }))),
        }),
      ),
    ),
  }),
});

/**
 * Hetzner's `{"error": {"code", "message", "details"}}`; for `invalid_input` and `uniqueness_error` the fields the
 * API named (`details.fields`) are added to the message, since its message alone says only "invalid input"; for
 * `resource_limit_exceeded` the limits it named (`details.limits`), so the operator knows which one to raise.
 */
export function hcloudErrorOf(body: unknown): { code: string; message: string } | undefined {
  const parsed = v.safeParse(envelope, body);
  if (!parsed.success) return undefined;
  const { code, message, details } = parsed.output.error;
  const notes = (details?.fields ?? []).map((f) =>
    f.messages?.length ? `${f.name}: ${f.messages.join(", ")}` : f.name,
  );
  const limits = (details?.limits ?? []).map((l) => l.name);
  if (limits.length > 0) notes.push(`${limits.length === 1 ? "limit" : "limits"}: ${limits.join(", ")}`);
  return { code, message: notes.length > 0 ? `${message} (${notes.join("; ")})` : message };
}

/** `rateLimit` defaults to `hcloudRateLimit`; `metrics` takes the kit's `cloudprovider_hcloud_api_*` metrics. */
export interface HcloudTransportOptions extends CloudApiClientTuning {
  readonly token: string;
  /** `HCLOUD_ENDPOINT`; default Hetzner's. */
  readonly endpoint?: string | undefined;
  readonly timeoutMs?: number;
  /** `HCLOUD_DEBUG`: each request is an info line on `logger` (request-log.ts). */
  readonly debug?: boolean;
}

/** The kit client plus the clock that action polling and caches share with it. */
export interface HcloudTransport {
  readonly client: CloudApiClient;
  readonly now: Now;
  readonly sleep: Sleep;
  /** Where the readers warn about what of an answer they left out. */
  readonly logger?: ConsolaInstance;
}

const NAME = "hcloud/api";

export function createHcloudTransport(o: HcloudTransportOptions): HcloudTransport {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? abortableSleep;
  const authorization = `Bearer ${o.token}`;
  const logger = o.logger;
  const fetcher = o.debug && logger ? loggedFetch(o.fetch ?? fetch, (line) => logger.info(line), now) : o.fetch;
  const client = new CloudApiClient({
    name: NAME,
    provider: "hcloud",
    baseUrl: o.endpoint ?? defaultHcloudEndpoint,
    auth: () => ({ authorization }),
    timeoutMs: o.timeoutMs ?? TIMEOUT_MS,
    rateLimit: o.rateLimit ?? hcloudRateLimit,
    metrics: o.metrics,
    errorOf: hcloudErrorOf,
    retry: { retryable: hcloudRetryable, ...o.retry },
    userAgent: "ccm-ts hcloud",
    now,
    sleep,
    ...(o.random && { random: o.random }),
    ...(o.maxAnswerBytes !== undefined && { maxAnswerBytes: o.maxAnswerBytes }),
    ...(fetcher && { fetch: fetcher }),
    ...(logger && { logger }),
  });
  return { client, now, sleep, ...(logger && { logger }) };
}

const pagination = v.object({
  meta: v.optional(
    v.object({
      pagination: v.optional(v.object({ next_page: v.optional(v.nullable(v.number()), null) })),
    }),
  ),
});

export interface ListRequest<T> {
  /** The metric label and error prefix: `listServers`. */
  readonly operation: string;
  readonly path: string;
  /** The answer's array key: `servers`. */
  readonly key: string;
  readonly item: v.GenericSchema<unknown, T>;
  /** Filters such as `name`, `label_selector`; `page` and `per_page` are set here. */
  readonly query?: Readonly<Record<string, string | undefined>>;
}

/** Every item of a listing, in pages of 50 (`meta.pagination.next_page`); one call per page. */
export async function listAll<T>(t: HcloudTransport, ctx: CallContext, req: ListRequest<T>): Promise<T[]> {
  const answer = v.object({ ...pagination.entries, [req.key]: v.array(req.item) });
  const items: T[] = [];
  const pages = t.client.pages(
    ctx,
    (page: number | undefined) => ({
      operation: req.operation,
      method: "GET",
      path: req.path,
      query: { ...req.query, page: page ?? 1, per_page: PAGE_SIZE },
      answer,
    }),
    ({ answer }) => answer.meta?.pagination?.next_page,
  );
  for await (const page of pages) items.push(...((page as Record<string, unknown>)[req.key] as T[]));
  return items;
}
