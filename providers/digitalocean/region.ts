/**
 * The region the provider works in: `REGION`, else what the Droplet metadata service says, as DO CCM asks it
 * (upstream: cloud-controller-manager/do/metadata.go dropletRegion); either is checked against the API's regions,
 * as DO CCM checks `REGION`. A manager outside DigitalOcean has no metadata service: the error says to set REGION.
 */
import type { CallContext } from "../cloud.ts";
import type { RegionsApi } from "./api/regions.ts";

export const METADATA_REGION_PATH = "/metadata/v1/region";
/** The metadata service answers at once on a Droplet; elsewhere the address leads nowhere. */
export const METADATA_TIMEOUT_MS = 2000;

export interface RegionSources {
  /** `REGION`. */
  readonly configured: string | undefined;
  /** `DO_METADATA_URL`: the metadata service's root. */
  readonly metadataUrl: string;
  readonly regions: RegionsApi;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export interface ResolvedRegion {
  readonly region: string;
  /** Where it came from, for the log: `REGION` or the metadata service's URL. */
  readonly from: string;
}

export async function resolveRegion(ctx: CallContext, s: RegionSources): Promise<ResolvedRegion> {
  const url = `${s.metadataUrl}${METADATA_REGION_PATH}`;
  const region = s.configured ?? (await askMetadata(ctx, url, s));
  const from = s.configured === undefined ? url : "REGION";
  const known = await s.regions.listRegionSlugs(ctx);
  if (!known.includes(region)) {
    const said =
      s.configured === undefined
        ? `the Droplet metadata service (${url}) answered "${region}", which`
        : `REGION=${region}`;
    throw new Error(
      `digitalocean: ${said} is not a region of this account (${known.join(", ") || "none listed"}); set REGION to one of them`,
    );
  }
  return { region, from };
}

async function askMetadata(ctx: CallContext, url: string, s: RegionSources): Promise<string> {
  const timeoutMs = s.timeoutMs ?? METADATA_TIMEOUT_MS;
  const fail = (why: string, cause?: unknown) =>
    new Error(
      `digitalocean: REGION is not set and the Droplet metadata service did not tell the region (GET ${url}: ${why}); set REGION to the cluster's region slug (such as nyc3), as a manager outside DigitalOcean must`,
      { cause },
    );
  let answer: Response;
  try {
    answer = await (s.fetch ?? fetch)(url, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]) });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const timedOut = (err as Error)?.name === "TimeoutError";
    throw fail(timedOut ? `no answer within ${timeoutMs / 1000}s` : (err as Error).message, err);
  }
  const text = (await answer.text()).trim();
  if (!answer.ok) throw fail(`HTTP ${answer.status}`);
  if (!/^[a-z]{3}[0-9]$/.test(text)) throw fail(`answered "${text.slice(0, 40)}", not a region slug`);
  return text;
}
