import { afterEach, describe, expect, test } from "bun:test";
import { createConsola } from "consola";
import { Registry } from "prom-client";
import * as v from "valibot";
import { startHarness, TOKEN } from "../../sandbox/hcloud/testing.ts";
import type { CallContext, CloudProvider } from "../cloud.ts";
import { ProviderRegistry } from "../registry.ts";
import { rejection } from "../testing.ts";
import { hcloudConfigSchema } from "./config.ts";
import { A, service, startLB } from "./lb/testing.ts";
import { hcloud, withoutEffect } from "./provider.ts";
import { cluster, startEmulators } from "./testing.ts";

const ctx: CallContext = { signal: new AbortController().signal };
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function emulator() {
  const h = startHarness();
  stop = () => h.stop();
  return h;
}

const build = (env: Record<string, string>, config?: string): Promise<CloudProvider> =>
  hcloud.build(
    {
      env,
      config,
      configSource: config === undefined ? undefined : "--cloud-config=test.yaml",
      metrics: new Registry(),
    },
    { retry: { maxRetries: 0 } },
  );

const base = { HCLOUD_TOKEN: TOKEN, HCLOUD_ENDPOINT: "http://127.0.0.1:9/v1" };

describe("capabilities follow hccm's switches", () => {
  test.each([
    ["no network: instances and load balancers, no routes", {}, { routes: false }],
    ["a network: routes by default", { HCLOUD_NETWORK: "k8s" }, { routes: true }],
    [
      "HCLOUD_LOAD_BALANCERS_ENABLED=false: no load balancers",
      { HCLOUD_LOAD_BALANCERS_ENABLED: "false" },
      { routes: false, loadBalancer: false },
    ],
    [
      "a network with HCLOUD_NETWORK_ROUTES_ENABLED=false: no routes",
      { HCLOUD_NETWORK: "k8s", HCLOUD_NETWORK_ROUTES_ENABLED: "false" },
      { routes: false },
    ],
    [
      "HCLOUD_NETWORK_ROUTES_ENABLED without a network: no routes",
      { HCLOUD_NETWORK_ROUTES_ENABLED: "true" },
      { routes: false },
    ],
  ] as [string, Record<string, string>, { routes: boolean; loadBalancer?: boolean }][])("%s", async (_, env, want) => {
    const p = await build({ ...base, ...env });
    expect(p.providerName).toBe("hcloud");
    expect(p.instancesV2).toBeDefined();
    expect(p.routes !== undefined).toBe(want.routes);
    expect(p.loadBalancer !== undefined).toBe(want.loadBalancer ?? true);
    expect(p.hasClusterID()).toBe(false);
    expect(p.rateLimit).toEqual({ qps: 0.9, burst: 10 });
  });

  test("settings may come from the cloud-config; the environment wins", async () => {
    const p = await build(base, "HCLOUD_NETWORK: k8s\nHCLOUD_NETWORK_ROUTES_ENABLED: true\n");
    expect(p.routes).toBeDefined();
    const off = await build({ ...base, HCLOUD_NETWORK_ROUTES_ENABLED: "false" }, "HCLOUD_NETWORK: k8s\n");
    expect(off.routes).toBeUndefined();
  });
});

describe("bad settings are one error naming each variable", () => {
  test.each([
    ["no token", { HCLOUD_ENDPOINT: base.HCLOUD_ENDPOINT }, ["HCLOUD_TOKEN", "is required"]],
    ["a bad boolean", { ...base, ROBOT_ENABLED: "yes" }, ["ROBOT_ENABLED", "must be true or false"]],
    ["a bad endpoint", { ...base, HCLOUD_ENDPOINT: "api.hetzner.cloud" }, ["HCLOUD_ENDPOINT", "http(s) URL"]],
  ])("%s", async (_, env, words) => {
    const err = await rejection(() => build(env));
    for (const w of words) expect(err.message).toContain(w);
  });

  test("through the registry, the error says which provider failed", async () => {
    const registry = new ProviderRegistry();
    registry.register("hcloud", (input) => hcloud.factory(input));
    const err = await rejection(() => registry.init("hcloud", undefined, { HCLOUD_NETWORK: "k8s" }));
    expect(err.message).toContain('could not init cloud provider "hcloud"');
    expect(err.message).toContain("HCLOUD_TOKEN");
  });
});

describe("verifyAccess (doctor) checks the token and the network", () => {
  test("passes with a good token and an existing network (by name or ID)", async () => {
    const h = emulator();
    const { network } = await cluster(h, ["node-1"]);
    for (const HCLOUD_NETWORK of ["k8s", String(network)]) {
      const p = await build({ HCLOUD_TOKEN: TOKEN, HCLOUD_ENDPOINT: h.emulator.endpoint, HCLOUD_NETWORK });
      await p.verifyAccess?.(ctx);
    }
  });

  test.each([
    ["a refused token names HCLOUD_TOKEN", { HCLOUD_TOKEN: "wrong-token" }, "the API refused HCLOUD_TOKEN"],
    [
      "a missing network names HCLOUD_NETWORK",
      { HCLOUD_NETWORK: "k8z" },
      "HCLOUD_NETWORK=k8z: the project has no network",
    ],
  ])("%s", async (_, env, words) => {
    const h = emulator();
    await cluster(h, ["node-1"]);
    const p = await build({ HCLOUD_TOKEN: TOKEN, HCLOUD_ENDPOINT: h.emulator.endpoint, ...env });
    const err = await rejection(() => p.verifyAccess!(ctx));
    expect(err.message).toContain(words);
    expect(err.message).not.toContain(TOKEN);
  });

  test("an error answer names HCLOUD_ENDPOINT and says the API answered", async () => {
    const failing = (async () =>
      new Response(JSON.stringify({ error: { code: "maintenance", message: "down for maintenance" } }), {
        status: 503,
        headers: { "content-type": "application/json" },
      })) as unknown as typeof fetch;
    const p = await hcloud.build(
      { env: base, config: undefined, configSource: undefined, metrics: new Registry() },
      { retry: { maxRetries: 0 }, fetch: failing },
    );
    const err = await rejection(() => p.verifyAccess!(ctx));
    expect(err.message).toContain("HCLOUD_ENDPOINT=http://127.0.0.1:9/v1 answered with an error");
    expect(err.message).toContain("down for maintenance");
  });

  test("an endpoint that does not answer names HCLOUD_ENDPOINT", async () => {
    const p = await build(base);
    const err = await rejection(() => p.verifyAccess!(ctx));
    expect(err.message).toContain("HCLOUD_ENDPOINT=http://127.0.0.1:9/v1 did not answer");
  });
});

test("the clients log through the manager's logger from construction on, tagged hcloud", async () => {
  const lines: string[] = [];
  const logger = createConsola({
    level: 5,
    reporters: [{ log: (l) => void lines.push(`${l.type} ${l.tag} ${l.args.join(" ")}`) }],
  });
  const p = await hcloud.build(
    { env: { ...base, HCLOUD_DEBUG: "true" }, config: undefined, configSource: undefined, logger },
    { retry: { maxRetries: 0 } },
  );
  await rejection(() => p.verifyAccess!(ctx));
  expect(lines.some((l) => l.startsWith("info hcloud ") && l.includes("/locations"))).toBe(true);
});

test.each([
  ["hccm's defaults: nothing to say", {}, []],
  ["HCLOUD_DEBUG has its effect (each request logged): nothing to say", { HCLOUD_DEBUG: "true" }, []],
  ["metrics turned off", { HCLOUD_METRICS_ENABLED: "false" }, ["HCLOUD_METRICS_ENABLED"]],
  ["another metrics address", { HCLOUD_METRICS_ADDRESS: ":9000" }, ["HCLOUD_METRICS_ADDRESS"]],
] as const)("settings without effect here are said at start: %s", (_, env, named) => {
  const said = withoutEffect(v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-", ...env }));
  expect(said.length).toBe(named.length);
  for (const [i, name] of named.entries()) expect(said[i]).toContain(name);
});

test("the registered provider's load balancers resolve a certificate given by name", async () => {
  const e = startEmulators();
  stop = () => e.stop();
  const w = await startLB(e);
  const p = await build({
    HCLOUD_TOKEN: TOKEN,
    HCLOUD_ENDPOINT: e.h.emulator.endpoint,
    HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
  });
  const svc = service({ [`${A}protocol`]: "https", [`${A}http-certificates`]: "web-cert" });
  await p.loadBalancer?.ensureLoadBalancer(ctx, "kubernetes", svc, w.nodes);
  expect(w.only().services[0]?.http?.certificates).toEqual([w.certID]);
});
