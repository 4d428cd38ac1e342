import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness, TOKEN } from "../../sandbox/digitalocean/testing.ts";
import { createDoClient } from "./api/client.ts";
import { HttpRegionsApi } from "./api/regions.ts";
import { resolveRegion } from "./region.ts";
import { unpaced } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
let h: Harness;
afterEach(() => h.stop());

function sources(configured: string | undefined, metadataUrl = h.emulator.metadataUrl) {
  const client = createDoClient({
    token: TOKEN,
    url: h.emulator.endpoint,
    rateLimit: unpaced,
    retry: { maxRetries: 0 },
  });
  return { configured, metadataUrl, regions: new HttpRegionsApi(client), timeoutMs: 1000 };
}

describe("the region", () => {
  beforeEach(() => {
    h = startHarness({ metadataRegion: "fra1" });
  });

  test("is REGION when set, checked against the account's regions", async () => {
    expect(await resolveRegion(ctx, sources("ams3"))).toEqual({ region: "ams3", from: "REGION" });
    expect(h.emulator.calls.count("GET /v2/regions")).toBe(1);
  });

  test("is the metadata service's answer when REGION is not set", async () => {
    const resolved = await resolveRegion(ctx, sources(undefined));
    expect(resolved).toEqual({ region: "fra1", from: `${h.emulator.metadataUrl}/metadata/v1/region` });
  });

  test("an unknown REGION is an error naming it and the known ones", async () => {
    expect(resolveRegion(ctx, sources("xyz9"))).rejects.toThrow(/REGION=xyz9 is not a region of this account \(nyc1, /);
  });

  test("an unreachable metadata service is an error saying to set REGION", async () => {
    expect(resolveRegion(ctx, sources(undefined, "http://127.0.0.1:9"))).rejects.toThrow(
      /REGION is not set and the Droplet metadata service did not tell the region .*set REGION/,
    );
  });
});

test("a metadata service without a region is an error saying to set REGION", async () => {
  h = startHarness({ metadataRegion: "" });
  expect(resolveRegion(ctx, sources(undefined))).rejects.toThrow(/HTTP 404\); set REGION/);
});
