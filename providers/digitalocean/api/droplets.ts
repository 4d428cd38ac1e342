/**
 * The Droplets the provider reads, and the account (the one cheap read that proves the token). Schemas ask only
 * for what the provider uses: unknown fields are ignored, and an optional one may be missing (`tags`, `networks`'
 * lists, `size_slug` on an odd answer).
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";

const network = v.object({ ip_address: v.string(), type: v.string() });

export const dropletSchema = v.pipe(
  v.object({
    id: v.pipe(v.number(), v.integer(), v.minValue(1)),
    name: v.string(),
    status: v.string(),
    size_slug: v.optional(v.nullable(v.string()), ""),
    region: v.optional(v.nullable(v.object({ slug: v.string() }))),
    networks: v.optional(
      v.nullable(
        v.object({
          v4: v.optional(v.nullable(v.array(network)), []),
          v6: v.optional(v.nullable(v.array(network)), []),
        }),
      ),
    ),
    tags: v.optional(v.nullable(v.array(v.string())), []),
  }),
  v.transform(
    (d): Droplet => ({
      id: d.id,
      name: d.name,
      status: d.status,
      sizeSlug: d.size_slug ?? "",
      region: d.region?.slug ?? "",
      privateV4: (d.networks?.v4 ?? []).find((n) => n.type === "private")?.ip_address ?? "",
      publicV4: (d.networks?.v4 ?? []).find((n) => n.type === "public")?.ip_address ?? "",
      publicV6: (d.networks?.v6 ?? []).find((n) => n.type === "public")?.ip_address ?? "",
      tags: d.tags ?? [],
    }),
  ),
);

/** A Droplet as the provider uses it; an address it does not have is `""`. */
export interface Droplet {
  readonly id: number;
  readonly name: string;
  /** `new`, `active`, `off`, `archive`. */
  readonly status: string;
  readonly sizeSlug: string;
  readonly region: string;
  readonly privateV4: string;
  readonly publicV4: string;
  readonly publicV6: string;
  readonly tags: readonly string[];
}

export interface DropletsApi {
  /** Every Droplet, or those named `name`, in pages of 200 (one call per page). */
  listDroplets(ctx: CallContext, filter?: { readonly name?: string }): Promise<Droplet[]>;
  /** One Droplet, or `undefined` when the API answers 404: only then is it gone. */
  getDroplet(ctx: CallContext, id: number): Promise<Droplet | undefined>;
  /** `GET /v2/account`: proves the endpoint and the token. */
  getAccount(ctx: CallContext): Promise<{ readonly status: string }>;
}

export class HttpDropletsApi implements DropletsApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  listDroplets(ctx: CallContext, filter: { readonly name?: string } = {}): Promise<Droplet[]> {
    return listAll(this.#client, ctx, {
      operation: "listDroplets",
      path: "/droplets",
      key: "droplets",
      item: dropletSchema,
      query: { name: filter.name },
    });
  }

  async getDroplet(ctx: CallContext, id: number): Promise<Droplet | undefined> {
    const answer = await this.#client.request(ctx, {
      operation: "getDroplet",
      method: "GET",
      path: `/droplets/${id}`,
      answer: v.object({ droplet: dropletSchema }),
      notFound: true,
    });
    return answer?.droplet;
  }

  async getAccount(ctx: CallContext): Promise<{ readonly status: string }> {
    const answer = await this.#client.request(ctx, {
      operation: "getAccount",
      method: "GET",
      path: "/account",
      answer: v.object({ account: v.object({ status: v.optional(v.string(), "") }) }),
    });
    return answer.account;
  }
}
