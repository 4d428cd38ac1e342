/**
 * Test support: the shipped declaration built from a `cloud.conf` over an OpenStack emulator, on the emulator's
 * stepping clock, unpaced and without retries. Nothing in production imports this file.
 */
import { type Harness, PASSWORD, PROJECT, USERNAME } from "../../sandbox/openstack/testing.ts";
import { openstack } from "./provider.ts";

export const unpaced = { qps: 0, burst: 1 };

/** A password `cloud.conf` for the harness's seeded user; `extra` lines are appended (a `[Networking]` section). */
export function passwordConf(h: Harness, extra = ""): string {
  return [
    "[Global]",
    `auth-url = ${h.emulator.authUrl}`,
    `username = ${USERNAME}`,
    `password = "${PASSWORD}"`,
    "user-domain-name = Default",
    `tenant-name = ${PROJECT}`,
    "tenant-domain-id = default",
    `region = ${h.emulator.region}`,
    extra,
  ].join("\n");
}

export async function osProvider(
  h: Harness,
  config = passwordConf(h),
  env: Readonly<Record<string, string>> = {},
  readFile?: (path: string) => Promise<string>,
) {
  return openstack.build(
    { env, config, configSource: "cloud.conf" },
    {
      now: h.clock.now,
      sleep: h.clock.sleep,
      random: () => 0.5,
      retry: { maxRetries: 0 },
      pace: unpaced,
      ...(readFile && { readFile }),
    },
  );
}
