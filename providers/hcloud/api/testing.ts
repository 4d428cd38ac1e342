/**
 * Test support for the hcloud provider's tests: the hcloud emulator on a stepping clock with an `HcloudTransport`
 * pointed at it (no client-side rate limit, so a test's calls are never paced). Nothing in production imports this.
 */
import { Registry } from "prom-client";
import { type Harness, startHarness, TOKEN } from "../../../sandbox/hcloud/testing.ts";
import { createHcloudTransport, type HcloudTransport } from "./client.ts";

export interface ApiHarness {
  readonly h: Harness;
  readonly t: HcloudTransport;
}

export function startApiHarness(options: Parameters<typeof startHarness>[0] = {}): ApiHarness {
  const h = startHarness(options);
  const t = createHcloudTransport({
    token: TOKEN,
    endpoint: h.emulator.endpoint,
    metrics: new Registry(),
    rateLimit: { qps: 0, burst: 1 },
    now: h.clock.now,
    sleep: h.clock.sleep,
    random: () => 0.5,
  });
  return { h, t };
}
