/**
 * Test support: the shipped declaration built over a Scaleway emulator on a stepping clock, unpaced. Nothing in
 * production imports this file.
 */
import { ACCESS_KEY, type Harness, SECRET_KEY } from "../../sandbox/scaleway/testing.ts";
import { scaleway } from "./provider.ts";

export const unpaced = { qps: 0, burst: 1 };

export function scwEnv(h: Harness, env: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    SCW_ACCESS_KEY: ACCESS_KEY,
    SCW_SECRET_KEY: SECRET_KEY,
    SCW_DEFAULT_REGION: "fr-par",
    SCW_API_URL: h.emulator.endpoint,
    DISABLE_TAGS_SYNC: "true",
    ...env,
  };
}

export async function scwProvider(h: Harness, env: Readonly<Record<string, string>> = {}) {
  return scaleway.build(
    { env: scwEnv(h, env), config: undefined, configSource: undefined },
    { now: h.clock.now, sleep: h.clock.sleep, random: () => 0.5, retry: { maxRetries: 0 }, pace: unpaced },
  );
}
