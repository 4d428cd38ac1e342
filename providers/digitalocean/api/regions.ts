/** `GET /v2/regions`: the region slugs the account may use, for checking the configured one. */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { CloudApiClient } from "../../kit/http/client.ts";
import { listAll } from "./client.ts";

export interface RegionsApi {
  /** Every region's slug, in pages of 200. */
  listRegionSlugs(ctx: CallContext): Promise<string[]>;
}

export class HttpRegionsApi implements RegionsApi {
  readonly #client: CloudApiClient;

  constructor(client: CloudApiClient) {
    this.#client = client;
  }

  listRegionSlugs(ctx: CallContext): Promise<string[]> {
    return listAll(this.#client, ctx, {
      operation: "listRegions",
      path: "/regions",
      key: "regions",
      item: v.pipe(
        v.object({ slug: v.string() }),
        v.transform((r) => r.slug),
      ),
    });
  }
}
