/**
 * The DigitalOcean API v2 transport the provider's `api/*.ts` modules build on: the cloud-API kit's client with
 * Bearer auth under `<DO_OVERRIDE_URL>/v2` (godo's base URL has no `/v2`; its paths add it), DigitalOcean's error
 * envelope (`{"id", "message", "request_id"}`), and a declared rate limit inside the token's budget of 5000
 * requests an hour and 250 a minute. The kit reads the `ratelimit-*` headers and `Retry-After` by itself.
 *
 * Listings go through `listAll`: pages of 200 (the API's maximum), so an account of N Droplets costs ⌈N/200⌉ calls.
 */
import * as v from "valibot";
import type { CallContext, RateLimit } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning, tuningOf } from "../../kit/http/client.ts";

export const defaultApiUrl = "https://api.digitalocean.com";

/**
 * 1.25 a second is 4500 an hour at most, 10% under the hourly budget; a burst of 20 stays far under the 250 a
 * minute. Room is left for `doctor`, doctl and a second manager during a handover.
 */
export const digitalOceanRateLimit: RateLimit = { qps: 1.25, burst: 20 };

/** The API's largest page. */
export const PAGE_SIZE = 200;

const TIMEOUT_MS = 30_000;

const envelope = v.object({ id: v.string(), message: v.optional(v.string(), "") });

/** DigitalOcean's `{"id": "not_found", "message": …}`. */
export function digitalOceanErrorOf(body: unknown): { code: string; message: string } | undefined {
  const parsed = v.safeParse(envelope, body);
  return parsed.success ? { code: parsed.output.id, message: parsed.output.message } : undefined;
}

export interface DoTransportOptions extends CloudApiClientTuning {
  readonly token: string;
  /** `DO_OVERRIDE_URL`: the API's root, without `/v2`; default DigitalOcean's. */
  readonly url?: string | undefined;
  readonly timeoutMs?: number;
}

export function createDoClient(o: DoTransportOptions): CloudApiClient {
  const authorization = `Bearer ${o.token}`;
  return new CloudApiClient({
    name: "digitalocean/api",
    provider: "digitalocean",
    baseUrl: `${(o.url ?? defaultApiUrl).replace(/\/+$/, "")}/v2`,
    auth: () => ({ authorization }),
    timeoutMs: o.timeoutMs ?? TIMEOUT_MS,
    rateLimit: o.rateLimit ?? digitalOceanRateLimit,
    errorOf: digitalOceanErrorOf,
    userAgent: "ccm-ts digitalocean",
    ...tuningOf(o),
  });
}

const links = v.object({
  links: v.optional(v.object({ pages: v.optional(v.object({ next: v.optional(v.string()) })) })),
});

export interface ListRequest<T> {
  /** The metric label and error prefix: `listDroplets`. */
  readonly operation: string;
  readonly path: string;
  /** The answer's array key: `droplets`. */
  readonly key: string;
  readonly item: v.GenericSchema<unknown, T>;
  readonly query?: Readonly<Record<string, string | undefined>>;
}

/** Every item of a listing, in pages of 200, one call per page, until the answer has no `links.pages.next`. */
export async function listAll<T>(client: CloudApiClient, ctx: CallContext, req: ListRequest<T>): Promise<T[]> {
  const answer = v.object({ ...links.entries, [req.key]: v.array(req.item) });
  const items: T[] = [];
  const pages = client.pages(
    ctx,
    (page: number | undefined) => ({
      operation: req.operation,
      method: "GET",
      path: req.path,
      query: { ...req.query, page: page ?? 1, per_page: PAGE_SIZE },
      answer,
    }),
    ({ answer }) => {
      const next = (answer as v.InferOutput<typeof links>).links?.pages?.next;
      if (!next) return undefined;
      const page = Number(new URL(next).searchParams.get("page"));
      return Number.isSafeInteger(page) && page > 1 ? page : undefined;
    },
  );
  for await (const page of pages) items.push(...((page as Record<string, unknown>)[req.key] as T[]));
  return items;
}
