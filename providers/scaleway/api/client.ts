/**
 * The Scaleway API transport the provider's `api/*.ts` modules build on: the cloud-API kit's client with the
 * secret key in `X-Auth-Token` under `SCW_API_URL` (the products' paths carry their own `/instance/v1/…`),
 * Scaleway's error envelope (`{"type", "message", …}`), and a declared rate limit.
 *
 * Not the official `@scaleway/sdk-*` packages (docs/providers/scaleway.md, "The SDK decision"): their API methods
 * take no per-call context, so the write fence and the caller's deadline could not reach each call.
 *
 * Listings go through `listAll`: pages of 100 (the APIs' maximum), read until `total_count` items came, so N
 * servers in a zone cost ⌈N/100⌉ calls (one when there are none).
 */
import * as v from "valibot";
import type { CallContext, RateLimit } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning, tuningOf } from "../../kit/http/client.ts";

export const defaultApiUrl = "https://api.scaleway.com";

/**
 * Scaleway publishes no request budget for these APIs; 10 a second with a burst of 20 reads a 1000-server
 * organisation's zones in a couple of seconds and leaves room for the console, the CLI and a second manager.
 */
export const scalewayRateLimit: RateLimit = { qps: 10, burst: 20 };

/** The APIs' largest page. */
export const PAGE_SIZE = 100;

const TIMEOUT_MS = 30_000;

const envelope = v.object({ type: v.string(), message: v.optional(v.string(), "") });

/** Scaleway's `{"type": "not_found", "message": …}`. */
export function scalewayErrorOf(body: unknown): { code: string; message: string } | undefined {
  const parsed = v.safeParse(envelope, body);
  return parsed.success ? { code: parsed.output.type, message: parsed.output.message } : undefined;
}

export interface ScwTransportOptions extends CloudApiClientTuning {
  readonly secretKey: string;
  /** `SCW_API_URL`; default Scaleway's. */
  readonly url?: string | undefined;
  /** `EXTRA_USER_AGENT`, appended to the user agent as scw CCM does. */
  readonly extraUserAgent?: string | undefined;
  readonly timeoutMs?: number;
}

export function createScwClient(o: ScwTransportOptions): CloudApiClient {
  const secretKey = o.secretKey;
  return new CloudApiClient({
    name: "scaleway/api",
    provider: "scaleway",
    baseUrl: (o.url ?? defaultApiUrl).replace(/\/+$/, ""),
    auth: () => ({ "x-auth-token": secretKey }),
    timeoutMs: o.timeoutMs ?? TIMEOUT_MS,
    rateLimit: o.rateLimit ?? scalewayRateLimit,
    errorOf: scalewayErrorOf,
    userAgent: `ccm-ts scaleway${o.extraUserAgent ? ` ${o.extraUserAgent}` : ""}`,
    ...tuningOf(o),
  });
}

export interface ListRequest<T> {
  /** The metric label and error prefix: `listInstanceServers`. */
  readonly operation: string;
  readonly path: string;
  /** The answer's array key: `servers`. */
  readonly key: string;
  readonly item: v.GenericSchema<unknown, T>;
  /** `per_page` (Instance) or `page_size` (Elastic Metal, IPAM). */
  readonly sizeParam: "per_page" | "page_size";
  readonly query?: Readonly<Record<string, string | undefined>>;
}

/** Every item of a listing, one call per page of 100, until `total_count` items came or a page is short. */
export async function listAll<T>(client: CloudApiClient, ctx: CallContext, req: ListRequest<T>): Promise<T[]> {
  const answer = v.object({
    total_count: v.pipe(v.number(), v.integer(), v.minValue(0)),
    [req.key]: v.array(req.item),
  });
  const items: T[] = [];
  let current = 1;
  const pages = client.pages(
    ctx,
    (page: number | undefined) => {
      current = page ?? 1;
      return {
        operation: req.operation,
        method: "GET",
        path: req.path,
        query: { ...req.query, page: page ?? 1, [req.sizeParam]: PAGE_SIZE },
        answer,
      };
    },
    ({ answer: got }) => {
      const page = got as { total_count: number } & Record<string, unknown[]>;
      const full = (page[req.key]?.length ?? 0) === PAGE_SIZE;
      return full && current * PAGE_SIZE < page.total_count ? current + 1 : undefined;
    },
  );
  for await (const page of pages) items.push(...((page as Record<string, unknown>)[req.key] as T[]));
  return items;
}
