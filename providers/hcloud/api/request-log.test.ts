import { afterEach, expect, test } from "bun:test";
import { Registry } from "prom-client";
import * as v from "valibot";
import { captureLogger } from "../../../platform/testing/logger.ts";
import { type Harness, startHarness, TOKEN } from "../../../sandbox/hcloud/testing.ts";
import { rejection } from "../../testing.ts";
import { createHcloudTransport } from "./client.ts";

const ctx = { signal: new AbortController().signal };
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A transport on the emulator, with HCLOUD_DEBUG as `debug`; its fetch moves the clock 7 ms per request. */
function transport(debug: boolean, endpoint?: string) {
  h = startHarness();
  const { logger, logs } = captureLogger();
  const clock = h.clock;
  const slow: typeof fetch = Object.assign(
    async (input: string | URL | Request, init?: RequestInit) => {
      clock.advance(7);
      return fetch(input, init);
    },
    { preconnect: fetch.preconnect },
  );
  const t = createHcloudTransport({
    token: TOKEN,
    endpoint: endpoint ?? h.emulator.endpoint,
    metrics: new Registry(),
    rateLimit: { qps: 0, burst: 1 },
    retry: { maxRetries: 0 },
    now: clock.now,
    sleep: clock.sleep,
    fetch: slow,
    logger,
    debug,
  });
  const info = () => logs.filter((l) => l.type === "info").map((l) => l.message);
  return { t, info, logs };
}

const get = (path: string) => ({ operation: "get", method: "GET" as const, path, answer: v.unknown() });

test.each([
  [
    "HCLOUD_DEBUG: each request is one info line with method, path and query, status and duration",
    true,
    ["hcloud API: GET /v1/servers?per_page=1 → 200 in 7ms", "hcloud API: GET /v1/servers/424242 → 404 in 7ms"],
  ],
  ["without it: no request is logged", false, []],
])("%s", async (_name, debug, want) => {
  const { t, info, logs } = transport(debug);
  await t.client.request(ctx, { ...get("/servers"), query: { per_page: 1 } });
  await rejection(() => t.client.request(ctx, get("/servers/424242")));
  expect(info()).toEqual(want);
  expect(logs.some((l) => l.message.includes(TOKEN))).toBe(false);
});

test("HCLOUD_DEBUG: a request without an answer says so, with the time it took", async () => {
  const { t, info } = transport(true, "http://127.0.0.1:9/v1");
  await rejection(() => t.client.request(ctx, get("/locations")));
  expect(info()).toEqual([expect.stringMatching(/^hcloud API: GET \/v1\/locations → no answer after 7ms: /)]);
});
