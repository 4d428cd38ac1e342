import { describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Event } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import type { CloudProvider, RateLimit } from "../cloud.ts";
import { FakeCloud } from "../fake/fake-cloud.ts";
import { ProviderRegistry } from "../registry.ts";
import { testProviderRuntime } from "../runtime.ts";
import { rejection } from "../testing.ts";
import type { Part } from "./parts.ts";
import { combinedRateLimit, compositeDefinition, createCompositeProvider, isCompositeProvider } from "./provider.ts";

function fake(name: string, tweak: (c: FakeCloud) => void = () => {}): FakeCloud {
  const c = Object.assign(new FakeCloud(), { provider: name, enableInstancesV2: true });
  tweak(c);
  return c;
}

const part = (provider: CloudProvider, servesNodes = true): Part => ({
  name: provider.providerName,
  provider,
  schemes: [provider.providerName],
  servesNodes,
});

describe("composite provider", () => {
  const limit = (qps: number, burst: number): RateLimit => ({ qps, burst });
  const limits: [string, (RateLimit | undefined)[], boolean[], RateLimit | undefined][] = [
    [
      "sums the Node parts' limits (each part's client keeps to its own)",
      [limit(10, 5), limit(200, 32)],
      [true, true],
      limit(210, 37),
    ],
    ["ignores a part that serves no Nodes", [limit(10, 5), undefined], [true, false], limit(10, 5)],
    [
      "is undeclared when a Node part declares none (the framework's single worker)",
      [limit(10, 5), undefined],
      [true, true],
      undefined,
    ],
  ];
  for (const [name, declared, nodes, expected] of limits) {
    test(`rate limit ${name}`, () => {
      const parts = declared.map((l, i) =>
        part(
          fake(`p${i}`, (c) => (c.rateLimit = l)),
          nodes[i],
        ),
      );
      expect(combinedRateLimit(parts)).toEqual(expected);
    });
  }

  test("load balancers and routes come from the parts named for them, classes and all", async () => {
    const lbs = fake("lbs");
    const routes = fake("routes");
    const composite = createCompositeProvider({ loadBalancer: "lbs", routes: "routes" }, [part(routes), part(lbs)]);
    const ctx = { signal: new AbortController().signal };
    const service = { metadata: { name: "web", namespace: "default", uid: "u-1" } };
    expect(composite.loadBalancer?.classes).toBe(lbs.loadBalancer?.classes);
    await composite.loadBalancer?.ensureLoadBalancer(ctx, "c", service, []);
    await composite.routes?.listRoutes(ctx, "c");
    expect([lbs.callNames()[0], routes.callNames()]).toEqual(["create", ["list-routes"]]);
    const none = createCompositeProvider({}, [part(lbs)]);
    expect([none.loadBalancer, none.routes]).toEqual([undefined, undefined]);
    expect(isCompositeProvider(composite)).toBe(true);
    expect(isCompositeProvider(lbs)).toBe(false);
  });

  test("serves the webhooks of the part that serves its load balancers, and only those", () => {
    const webhook = { type: "validating", description: "test", admit: () => ({ allowed: true }) } as const;
    const lbs = Object.assign(fake("lbs"), { webhooks: { "service-annotations": webhook } });
    const nodes = Object.assign(fake("nodes"), { webhooks: { "node-checks": webhook } });
    const composite = createCompositeProvider({ loadBalancer: "lbs" }, [part(nodes), part(lbs)]);
    expect(composite.webhooks).toEqual({ "service-annotations": webhook });
    expect(createCompositeProvider({}, [part(nodes), part(lbs)]).webhooks).toBeUndefined();
  });

  test("runs every part's own controllers, and none when no part has any", () => {
    const firewall = { name: "public-access-firewall", run: async () => {} };
    const audit = { name: "audit", run: async () => {} };
    const a = Object.assign(fake("a"), { controllers: [firewall] });
    const b = Object.assign(fake("b"), { controllers: [audit] });
    expect(createCompositeProvider({}, [part(a), part(b)]).controllers).toEqual([firewall, audit]);
    expect(createCompositeProvider({}, [part(fake("c"))]).controllers).toBeUndefined();
  });

  test("no instances when no part serves Nodes (the node controllers then do not run)", () => {
    expect(createCompositeProvider({}, [part(fake("a"), false)]).instancesV2).toBeUndefined();
  });

  test("has a cluster ID only when every part has one", () => {
    const without = fake("b");
    without.hasClusterID = () => false;
    expect(createCompositeProvider({}, [part(fake("a"))]).hasClusterID()).toBe(true);
    expect(createCompositeProvider({}, [part(fake("a")), part(without)]).hasClusterID()).toBe(false);
  });

  test("verifyAccess checks every part and names each one that fails", async () => {
    const ok = Object.assign(fake("ok"), { verifyAccess: async () => {} });
    const bad = Object.assign(fake("bad"), {
      verifyAccess: async () => Promise.reject(new Error("401 token refused")),
    });
    const worse = Object.assign(fake("worse"), { verifyAccess: async () => Promise.reject(new Error("no route")) });
    const composite = createCompositeProvider({}, [part(ok), part(bad), part(worse)]);
    expect((await rejection(() => composite.verifyAccess!({ signal: AbortSignal.timeout(5000) }))).message).toBe(
      'composite: 2 of 3 providers failed: provider "bad": 401 token refused; provider "worse": no route',
    );
  });

  test("initialize starts every part with a logger tagged with its name; a failing part is named", async () => {
    const seen: string[] = [];
    const a = Object.assign(fake("a"), {
      initialize: (rt: { logger: { options: { defaults: { tag?: string } } } }) =>
        void seen.push(rt.logger.options.defaults.tag ?? ""),
    });
    const b = Object.assign(fake("b"), { initialize: async () => Promise.reject(new Error("ConfigMap unreadable")) });
    const term = new AbortController();
    const runtime = testProviderRuntime(new EmulatorKubeClient(), term.signal, captureLogger().logger);
    const err = await rejection(async () => createCompositeProvider({}, [part(a), part(b)]).initialize!(runtime));
    term.abort();
    expect(seen).toEqual(["a"]);
    expect(err.message).toBe('composite: provider "b" failed to initialize: ConfigMap unreadable');
  });

  test("after initialize, a Node no part owns gets a Warning event saying why it is kept", async () => {
    const client = new EmulatorKubeClient();
    const term = new AbortController();
    const registry = new ProviderRegistry();
    registry.register("a", () => fake("a"));
    const composite = await compositeDefinition(registry).build({
      config: "providers:\n  - { name: a }\n",
      configSource: "test",
      env: {},
    });
    await composite.initialize!(testProviderRuntime(client, term.signal, captureLogger().logger));
    const stray = { metadata: { name: "hw-1", uid: "u1" }, spec: { providerID: "hrobot://1" } };
    expect(await composite.instancesV2!.instanceExists({ signal: term.signal }, stray)).toBe(true);
    expect(composite.ownerOf(stray)).toBe('no configured provider: none of a declares scheme "hrobot"');
    const events = async () => (await client.list<Event>(Resources.events)).items;
    await waitFor(async () => (await events()).length > 0, { message: "the Warning event" });
    term.abort();
    expect((await events()).map((e) => [e.involvedObject?.name, e.reason, e.type, e.source?.component])).toEqual([
      ["hw-1", "CloudProviderUnknown", "Warning", "composite-cloud-provider"],
    ]);
  });
});
