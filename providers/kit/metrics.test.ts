import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { RetryError, wrapError } from "../errors.ts";
import { rejection } from "../testing.ts";
import { type CallOutcome, instrumented, providerApiMetrics } from "./metrics.ts";

/** A clock that advances `stepMs` on every read, so each call lasts exactly one step. */
const ticking = (stepMs: number) => {
  let t = 0;
  return () => {
    const now = t;
    t += stepMs;
    return now;
  };
};

/** A sample's value in a scrape; 0 when absent (prom-client leaves out a labelled counter never incremented). */
const sample = (text: string, series: string): number =>
  Number(
    text
      .split("\n")
      .find((line) => line.startsWith(`${series} `))
      ?.slice(series.length + 1) ?? 0,
  );

describe("providerApiMetrics", () => {
  test("names the metrics after upstream's cloud providers, with the provider's dashes as underscores", async () => {
    const registry = new Registry();
    providerApiMetrics(registry, "my-cloud").observe("getServer", 0.2, "ok");
    const text = await registry.metrics();
    expect(text).toContain('cloudprovider_my_cloud_api_request_duration_seconds_count{request="getServer"} 1');
    expect(text).toContain("# TYPE cloudprovider_my_cloud_api_request_errors counter");
    expect(text).toContain("# TYPE cloudprovider_my_cloud_api_throttled_requests_total counter");
    expect(text).toContain("# HELP cloudprovider_my_cloud_api_request_duration_seconds [ALPHA] ");
  });

  test("is one instance per registry and provider, so a second client does not register twice", () => {
    const registry = new Registry();
    expect(providerApiMetrics(registry, "a")).toBe(providerApiMetrics(registry, "a"));
    expect(providerApiMetrics(registry, "a")).not.toBe(providerApiMetrics(registry, "b"));
    expect(providerApiMetrics(registry, "a")).not.toBe(providerApiMetrics(new Registry(), "a"));
  });

  test("works without a registry (a registry of its own)", () => {
    expect(() => providerApiMetrics(undefined, "x").observe("op", 1, "error")).not.toThrow();
  });

  const outcomes: [CallOutcome, { errors: number; throttled: number }][] = [
    ["ok", { errors: 0, throttled: 0 }],
    ["error", { errors: 1, throttled: 0 }],
    ["throttled", { errors: 1, throttled: 1 }],
  ];
  for (const [outcome, want] of outcomes) {
    test(`a call that ends "${outcome}" counts its duration, ${want.errors} error and ${want.throttled} throttled`, async () => {
      const registry = new Registry();
      providerApiMetrics(registry, "p").observe("op", 0.5, outcome);
      const text = await registry.metrics();
      expect(text).toContain('cloudprovider_p_api_request_duration_seconds_count{request="op"} 1');
      expect(text).toContain('cloudprovider_p_api_request_duration_seconds_sum{request="op"} 0.5');
      expect(sample(text, 'cloudprovider_p_api_request_errors{request="op"}')).toBe(want.errors);
      expect(sample(text, 'cloudprovider_p_api_throttled_requests_total{request="op"}')).toBe(want.throttled);
    });
  }

  test("a refusal the call outlived counts as throttled, not as an error", async () => {
    const registry = new Registry();
    providerApiMetrics(registry, "p").throttled("op");
    const text = await registry.metrics();
    expect(sample(text, 'cloudprovider_p_api_throttled_requests_total{request="op"}')).toBe(1);
    expect(sample(text, 'cloudprovider_p_api_request_errors{request="op"}')).toBe(0);
  });
});

describe("instrumented", () => {
  const cases: [string, () => Promise<string>, CallOutcome][] = [
    ["a resolved call is ok", async () => "done", "ok"],
    ["a rejected call is an error", async () => Promise.reject(new Error("boom")), "error"],
    ["a RetryError is throttled", async () => Promise.reject(new RetryError("slow down", 1000)), "throttled"],
    [
      "a RetryError deeper in the cause chain is throttled",
      async () => Promise.reject(wrapError("op", new RetryError("slow down", 1000))),
      "throttled",
    ],
  ];
  for (const [name, call, want] of cases) {
    test(`${name}, timed by the injected clock, and the result or error passes through`, async () => {
      const seen: [string, number, CallOutcome][] = [];
      const metrics = { observe: (...a: [string, number, CallOutcome]) => seen.push(a), throttled: () => {} };
      if (want === "ok") expect(await instrumented(metrics, "op", call, ticking(250))).toBe("done");
      else expect((await rejection(() => instrumented(metrics, "op", call, ticking(250)))).message).toBeTruthy();
      expect(seen).toEqual([["op", 0.25, want]]);
    });
  }
});
