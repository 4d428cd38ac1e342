import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../../sandbox/scaleway/testing.ts";
import { scwEnv, scwProvider } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

describe("the scaleway provider", () => {
  test("verifyAccess reads the project when one is set", async () => {
    const provider = await scwProvider(h, { SCW_DEFAULT_PROJECT_ID: h.emulator.world.defaultProject.id });
    await provider.verifyAccess?.(ctx);
    expect(h.emulator.calls.count("GET /account/v3/projects/:project_id")).toBe(1);
  });

  test("verifyAccess without a project asks for one Instance of the region's first zone", async () => {
    await (await scwProvider(h)).verifyAccess?.(ctx);
    expect(h.emulator.calls.count("GET /instance/v1/zones/:zone/servers")).toBe(1);
  });

  test("a refused secret key fails naming SCW_SECRET_KEY, without its value", async () => {
    const wrong = "00000000-0000-4000-8000-00000000dead";
    const provider = await scwProvider(h, { SCW_SECRET_KEY: wrong });
    const error = provider.verifyAccess?.(ctx);
    expect(error).rejects.toThrow(/SCW_SECRET_KEY/);
    expect(error).rejects.not.toThrow(wrong);
  });

  test("a project the key cannot read fails naming SCW_DEFAULT_PROJECT_ID", async () => {
    const provider = await scwProvider(h, { SCW_DEFAULT_PROJECT_ID: "11111111-2222-4333-8444-555555555555" });
    expect(provider.verifyAccess?.(ctx)).rejects.toThrow(/SCW_DEFAULT_PROJECT_ID=11111111/);
  });

  test("DISABLE_INTERFACES=instances turns instancesV2 off, as in scw CCM", async () => {
    expect((await scwProvider(h, { DISABLE_INTERFACES: "instances" })).instancesV2).toBeUndefined();
    expect((await scwProvider(h)).instancesV2).toBeDefined();
  });

  test("DISABLE_INTERFACES=loadbalancer turns loadBalancer off, as in scw CCM", async () => {
    expect((await scwProvider(h, { DISABLE_INTERFACES: "loadbalancer" })).loadBalancer).toBeUndefined();
    expect((await scwProvider(h)).loadBalancer?.planLoadBalancer).toBeDefined();
  });

  test("EXTRA_USER_AGENT is appended to the user agent of every request", async () => {
    const agents: string[] = [];
    const provider = await (await import("./provider.ts")).scaleway.build(
      { env: scwEnv(h, { EXTRA_USER_AGENT: "cluster-7" }), config: undefined, configSource: undefined },
      {
        retry: { maxRetries: 0 },
        pace: { qps: 0, burst: 1 },
        fetch: ((input: Request | string | URL, init?: RequestInit) => {
          agents.push(new Headers(init?.headers).get("user-agent") ?? "");
          return fetch(input, init);
        }) as typeof fetch,
      },
    );
    await provider.verifyAccess?.(ctx);
    expect(agents).toEqual(["ccm-ts scaleway cluster-7"]);
  });
});
