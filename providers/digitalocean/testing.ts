/**
 * Test support: the shipped declaration built over a DigitalOcean emulator on a stepping clock, unpaced (the
 * tests would otherwise wait out the token's budget), asking the emulator's metadata service for the region. Nothing in production imports this file.
 */
import { type Harness, TOKEN } from "../../sandbox/digitalocean/testing.ts";
import { digitalocean } from "./provider.ts";

export const unpaced = { qps: 0, burst: 1 };

export async function doProvider(h: Harness, env: Readonly<Record<string, string>> = {}) {
  return digitalocean.build(
    {
      env: {
        DO_ACCESS_TOKEN: TOKEN,
        DO_OVERRIDE_URL: h.emulator.endpoint,
        DO_METADATA_URL: h.emulator.metadataUrl,
        ...env,
      },
      config: undefined,
      configSource: undefined,
    },
    { now: h.clock.now, sleep: h.clock.sleep, random: () => 0.5, retry: { maxRetries: 0 }, pace: unpaced },
  );
}
