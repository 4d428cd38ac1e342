import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../../sandbox/digitalocean/testing.ts";
import { digitalocean } from "./provider.ts";
import { doProvider } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

describe("the digitalocean provider", () => {
  test("declares a rate limit inside the token's 5000 requests an hour and 250 a minute", () => {
    const limit = digitalocean.rateLimit;
    expect(limit).toBeUndefined(); // it depends on DO_API_RATE_LIMIT_QPS
  });

  test("paces itself inside the budget by default, and to DO_API_RATE_LIMIT_QPS when set", async () => {
    const paced = await doProvider(h);
    expect(paced.rateLimit?.qps ?? 0).toBeLessThanOrEqual(5000 / 3600);
    expect((paced.rateLimit?.qps ?? 0) * 60 + (paced.rateLimit?.burst ?? 0)).toBeLessThanOrEqual(250);
    expect((await doProvider(h, { DO_API_RATE_LIMIT_QPS: "3" })).rateLimit).toEqual({ qps: 3, burst: 3 });
  });

  test.each([
    ["refuses", { "service.beta.kubernetes.io/do-loadbalancer-size-unit": "0" }, false],
    ["refuses", { "kubernetes.digitalocean.com/load-balancer-id": "not-a-uuid" }, false],
    ["allows", { "service.beta.kubernetes.io/do-loadbalancer-protocol": "http" }, true],
  ])("its service-annotations webhook %s %j at admission", async (_verb, annotations, allowed) => {
    const webhook = (await doProvider(h)).webhooks?.["service-annotations"];
    const object = {
      metadata: { name: "web", namespace: "shop", annotations },
      spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
    };
    const verdict = webhook?.admit({
      uid: "1",
      kind: { group: "", version: "v1", kind: "Service" },
      operation: "CREATE",
      object,
    } as never);
    expect(verdict?.allowed).toBe(allowed);
    if (!allowed) expect(verdict?.status?.message).toContain(Object.keys(annotations)[0] ?? "");
  });

  test("verifyAccess reads the account and passes with a good token", async () => {
    await (await doProvider(h)).verifyAccess?.(ctx);
    expect(h.emulator.calls.count("GET /v2/account")).toBe(1);
  });

  test("verifyAccess with a refused token fails naming DO_ACCESS_TOKEN, never its value", async () => {
    const provider = await doProvider(h, { DO_ACCESS_TOKEN: "wrong-token-value" });
    const failure = provider.verifyAccess?.(ctx);
    expect(failure).rejects.toThrow(/refused DO_ACCESS_TOKEN/);
    expect(failure).rejects.not.toThrow(/wrong-token-value/);
  });

  test("an unreachable API names DO_OVERRIDE_URL", async () => {
    const provider = await doProvider(h, { DO_OVERRIDE_URL: "http://127.0.0.1:9" });
    expect(provider.verifyAccess?.(ctx)).rejects.toThrow(/DO_OVERRIDE_URL=http:\/\/127\.0\.0\.1:9/);
  });
});
