import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { ConfigError } from "../../config/errors.ts";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import { findInCauseChain } from "../errors.ts";
import { globalRegistry } from "../registry.ts";
import { tokenEnvVar } from "./config.ts";
import "./index.ts";
import { sandbox, sandboxRateLimit } from "./provider.ts";
import { node, startTestCloud, type TestCloud, testToken } from "./testing.ts";

let t: TestCloud;
let dir: string;
beforeEach(async () => {
  t = startTestCloud();
  dir = await mkdtemp(join(tmpdir(), "sandbox-provider-"));
});
afterEach(async () => {
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("the sandbox provider", () => {
  test("is registered as `sandbox` and built from a cloud-config file with a token file", async () => {
    await writeFile(join(dir, "token"), `${testToken}\n`);
    await writeFile(join(dir, "cloud.yaml"), `url: ${t.cloud.url}\ntokenFile: ${join(dir, "token")}\n`);
    const provider = await globalRegistry.init("sandbox", join(dir, "cloud.yaml"), {});
    expect(provider.providerName).toBe("sandbox");
    expect(provider.hasClusterID()).toBe(true);
    expect(provider.rateLimit).toEqual(sandboxRateLimit);
    expect(provider.zones).toBeUndefined();
    expect(provider.instances).toBeUndefined();
    createMachines(t.cloud.state, 1);
    expect(await provider.instancesV2?.instanceExists(t.ctx, node("node-1"))).toBe(true);
  });

  test("takes the token from the environment", async () => {
    const provider = await sandbox.factory({
      config: `url: ${t.cloud.url}`,
      configSource: undefined,
      env: { [tokenEnvVar]: testToken },
    });
    expect(await provider.routes?.listRoutes(t.ctx, "kubernetes")).toEqual([]);
  });

  test("records its cloud calls in the metrics registry it was built with", async () => {
    const metrics = new Registry();
    const config = `url: ${t.cloud.url}\ntoken: ${testToken}`;
    const provider = await sandbox.factory({ config, configSource: undefined, env: {}, metrics });
    await provider.routes?.listRoutes(t.ctx, "kubernetes");
    const series = 'cloudprovider_sandbox_api_request_duration_seconds_count{request="listRoutes"} 1';
    expect(await metrics.metrics()).toContain(series);
  });

  test("a bad cloud-config fails registry init with every problem, before any cloud call", async () => {
    await writeFile(join(dir, "cloud.yaml"), "url: nope\ntoken: a\ntokenFile: b\ncolour: blue\n");
    const err = await globalRegistry.init("sandbox", join(dir, "cloud.yaml"), {}).then(
      () => new Error("expected a failure"),
      (e: Error) => e,
    );
    const config = findInCauseChain(err, ConfigError);
    expect(config?.issues.map((i) => i.path)).toEqual(["url", "colour", "tokenFile"]);
    expect(err.message).toStartWith(
      `could not init cloud provider "sandbox": --cloud-config=${join(dir, "cloud.yaml")}`,
    );
    expect(t.cloud.calls.snapshot().total).toBe(0);
  });
});
