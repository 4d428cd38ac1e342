import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/errors.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { findInCauseChain } from "../errors.ts";
import { FakeCloud } from "../fake/fake-cloud.ts";
import { CloudApiError, CloudUnreachableError } from "../kit/http/errors.ts";
import { testProviderRuntime } from "../runtime.ts";
import { rejection } from "../testing.ts";
import { PartUnavailableError } from "./degraded.ts";
import type { Part } from "./parts.ts";
import { createCompositeProvider } from "./provider.ts";

const api = (status: number) => new CloudApiError("cloud/api.verifyToken", status, "x", "injected", 4);
const wrapped = (cause: unknown) => new Error("cloud: the API did not answer as it should", { cause });

/** A part whose `initialize` fails with `errors` in turn, then succeeds. */
function flaky(name: string, errors: unknown[]): { part: Part; cloud: FakeCloud; attempts: () => number } {
  let attempts = 0;
  const cloud = Object.assign(new FakeCloud(), {
    provider: name,
    enableInstancesV2: true,
    initialize: async () => {
      const err = errors[attempts++];
      if (err !== undefined) throw err;
    },
  });
  return { part: { name, provider: cloud, schemes: [name], servesNodes: true }, cloud, attempts: () => attempts };
}

const healthy = (name: string): Part => ({
  name,
  provider: Object.assign(new FakeCloud(), { provider: name, enableInstancesV2: true }),
  schemes: [name],
  servesNodes: true,
});

function setup(
  parts: Part[],
  config: { loadBalancer?: string; routes?: string } = {},
  /** Resolves the back-off; default at once (recorded in `delays`). */
  wait: () => Promise<void> = () => Bun.sleep(0),
) {
  const delays: number[] = [];
  const { logger, logs } = captureLogger();
  const term = new AbortController();
  const composite = createCompositeProvider(config, parts, {
    now: () => 0,
    sleep: async (ms) => {
      delays.push(ms);
      await wait();
    },
    backoff: { firstMs: 1_000, capMs: 4_000 },
  });
  const runtime = testProviderRuntime(new EmulatorKubeClient(), term.signal, logger);
  return { composite, delays, logs, term, initialize: () => composite.initialize!(runtime) };
}

const ctx = { signal: new AbortController().signal };
const node = (name: string, providerID: string) => ({ metadata: { name, uid: name }, spec: { providerID } });
const service = { metadata: { name: "web", namespace: "default", uid: "u-1" } };

describe("a part whose cloud is down when the composite initializes", () => {
  const starts: [string, unknown, "degraded" | "fatal"][] = [
    ["answering 503", wrapped(api(503)), "degraded"],
    ["answering 500", api(500), "degraded"],
    ["answering 429", api(429), "degraded"],
    ["not answering at all", new CloudUnreachableError("cloud/api.verifyToken: connection refused"), "degraded"],
    ["refusing the credentials (401)", wrapped(api(401)), "fatal"],
    ["refusing what the credentials may do (403)", api(403), "fatal"],
    ["with an invalid configuration", new ConfigError("cloud.yaml", [{ path: "url", message: "bad" }]), "fatal"],
    [
      "failing for a reason of no known kind (a network that is not there)",
      new Error("network k8s not found"),
      "fatal",
    ],
  ];
  for (const [what, error, outcome] of starts) {
    test(`${outcome === "degraded" ? "starts degraded" : "stops the manager"} with the cloud ${what}`, async () => {
      const down = flaky("cloud", [error]);
      const { initialize, term, composite } = setup([down.part, healthy("metal")]);
      if (outcome === "fatal") {
        const err = await rejection(async () => initialize());
        expect(err.message).toStartWith('composite: provider "cloud" failed to initialize: ');
        expect(composite.partProblem("cloud")).toBeUndefined();
      } else {
        await initialize();
        expect(composite.partProblem("cloud")).toContain('provider "cloud" has not initialized');
      }
      expect(composite.partProblem("metal")).toBeUndefined();
      term.abort();
    });
  }

  test("its Nodes are 'cannot tell' and its load balancers and routes fail retryably; the other part serves", async () => {
    const down = flaky("cloud", [api(503), api(503), api(503)]);
    // The retries never get past the first back-off.
    const {
      initialize,
      term,
      composite: stuck,
    } = setup([down.part, healthy("metal")], { loadBalancer: "cloud", routes: "cloud" }, () => new Promise(() => {}));
    await initialize();
    const i = stuck.instancesV2!;
    for (const ask of [
      () => i.instanceExists(ctx, node("c-1", "cloud://1")),
      () => i.instanceShutdown(ctx, node("c-1", "cloud://1")),
      () => i.instanceMetadata(ctx, node("c-1", "cloud://1")),
      () => i.instanceMetadata(ctx, node("new", "")),
      () => stuck.loadBalancer!.ensureLoadBalancer(ctx, "c", service, []),
      () => stuck.loadBalancer!.ensureLoadBalancerDeleted(ctx, "c", service),
      () => stuck.routes!.listRoutes(ctx, "c"),
    ]) {
      const err = await rejection(async () => ask());
      expect(findInCauseChain(err, PartUnavailableError)?.message).toContain(
        'provider "cloud" has not initialized yet, its cloud is unavailable: cloud/api.verifyToken: 503',
      );
    }
    expect(stuck.loadBalancer!.getLoadBalancerName(ctx, "c", service)).toBeString();
    expect(await i.instanceExists(ctx, node("rack-1", "metal://rack-1"))).toBeBoolean();
    expect(down.cloud.callNames()).toEqual([]);
    term.abort();
  });

  test("is retried with capped exponential back-off until it initializes, then serves; logged once per change", async () => {
    const down = flaky("cloud", [api(503), api(503), api(503), api(503), wrapped(api(401)), api(503)]);
    const { initialize, term, composite, delays, logs } = setup([down.part, healthy("metal")]);
    await initialize();
    await waitFor(() => composite.partProblem("cloud") === undefined, { message: "the part initialized" });
    term.abort();
    expect(down.attempts()).toBe(7);
    expect(delays).toEqual([1_000, 2_000, 4_000, 4_000, 4_000, 4_000]);
    expect(await composite.instancesV2!.instanceExists(ctx, node("c-1", "cloud://1"))).toBeBoolean();
    expect(logs.filter((l) => l.type === "warn" || l.type === "info").map((l) => l.message)).toEqual([
      expect.stringContaining('provider "cloud" could not initialize, its cloud is unavailable: '),
      expect.stringContaining(
        'provider "cloud" still cannot initialize, now because its cloud refuses its credentials',
      ),
      expect.stringContaining('provider "cloud" still cannot initialize, now because its cloud is unavailable'),
      'provider "cloud" initialized after 7 attempts; it serves again',
    ]);
  });

  test("stops being retried when the term ends", async () => {
    let release = () => {};
    const wait = () => new Promise<void>((resolve) => (release = resolve));
    const down = flaky(
      "cloud",
      Array.from({ length: 10 }, () => api(503)),
    );
    const { initialize, term, delays } = setup([down.part], {}, wait);
    await initialize();
    release();
    await waitFor(() => delays.length === 2, { message: "the second back-off" });
    term.abort();
    release();
    await Bun.sleep(5);
    expect(down.attempts()).toBe(2);
    expect(delays).toEqual([1_000, 2_000]);
  });
});
