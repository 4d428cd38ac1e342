import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { ConfigError } from "../../config/errors.ts";
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import type { ConfigMap, Service } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { findInCauseChain } from "../errors.ts";
import { globalRegistry } from "../registry.ts";
import { MetalAnnotations } from "./annotations.ts";
import "./index.ts";
import { testProviderRuntime } from "../runtime.ts";
import { parseMetalConfig } from "./config.ts";
import { metalProvider, metalRateLimit } from "./provider.ts";
import { node, service } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

async function start(text: string, client: EmulatorKubeClient, runtime = testRuntime(client)) {
  const provider = metalProvider(parseMetalConfig(text, "test"));
  await provider.initialize(runtime);
  return { provider, term: runtime.term, logs: runtime.logs };
}

/** A runtime whose term ends after the test, with its log lines. */
function testRuntime(client: EmulatorKubeClient) {
  const term = new AbortController();
  stops.push(() => term.abort());
  const { logger, logs } = captureLogger();
  return { ...testProviderRuntime(client, term.signal, logger), term, logs };
}

const configMap = (name: string, data: Record<string, string>): ConfigMap => ({
  metadata: { name, namespace: "kube-system" },
  data,
});

describe("the metal provider", () => {
  test("is registered as `metal`, builds from a cloud-config file, and offers InstancesV2 without a file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "metal-provider-"));
    stops.push(() => void rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, "cloud.yaml"), "loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n");
    const metrics = new Registry();
    const provider = await globalRegistry.init("metal", join(dir, "cloud.yaml"), {}, { metrics });
    expect(provider.providerName).toBe("metal");
    // The shutdown probes record into the registry the manager serves.
    expect(await metrics.metrics()).toContain("cloudprovider_metal_api_request_duration_seconds");
    expect(provider.hasClusterID()).toBe(true);
    expect(provider.rateLimit).toEqual(metalRateLimit);
    expect(provider.loadBalancer).toBeDefined();
    expect(provider.routes).toBeUndefined();
    expect(provider.instances).toBeUndefined();
    const bare = await globalRegistry.init("metal", undefined, {});
    expect(bare.loadBalancer).toBeUndefined();
    expect(await bare.instancesV2?.instanceMetadata(ctx, node("n1"))).toMatchObject({ providerID: "metal://n1" });
  });

  test("a bad cloud-config is one error listing every problem", async () => {
    const dir = await mkdtemp(join(tmpdir(), "metal-provider-"));
    stops.push(() => void rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, "cloud.yaml"), "inventory: { machines: [{ name: A }] }\nloadBalancer: { global: 1 }\n");
    const err = await globalRegistry.init("metal", join(dir, "cloud.yaml"), {}).catch((e: unknown) => e as Error);
    expect(findInCauseChain(err, ConfigError)?.issues.map((i) => i.path)).toEqual([
      "inventory.machines[0].name",
      "loadBalancer.global",
    ]);
  });

  test("watches the inventory ConfigMap: entries appear, change and go; unreadable ones are logged", async () => {
    const client = new EmulatorKubeClient();
    client.seed(
      Resources.configMaps,
      configMap("metal-inventory", { "node-1": "zone: rack-1\n", Bad_Key: "zone: x\n" }),
    );
    const text = "inventory:\n  configMap: {}\n  machines: [{ name: node-1, zone: from-file, region: dc-1 }]\n";
    const { provider, logs } = await start(text, client);
    const v2 = provider.instancesV2;
    expect(await v2.instanceMetadata(ctx, node("node-1"))).toMatchObject({ zone: "rack-1", region: "" });
    expect(logs.some((l) => l.message.includes('entry "Bad_Key": the key "Bad_Key" is not a Node name'))).toBe(true);

    await client.patch(
      Resources.configMaps,
      "metal-inventory",
      "merge",
      { data: { "node-1": "zone: rack-2\n" } },
      { namespace: "kube-system" },
    );
    await waitFor(async () => (await v2.instanceMetadata(ctx, node("node-1")))?.zone === "rack-2", {
      message: "the change",
    });

    await client.delete(Resources.configMaps, "metal-inventory", { namespace: "kube-system" });
    await waitFor(async () => (await v2.instanceMetadata(ctx, node("node-1")))?.zone === "from-file", {
      message: "the deletion",
    });
    expect(provider.inventory.incomplete()).toBe("the inventory ConfigMap kube-system/metal-inventory does not exist");
  });

  test("reads pools from the kube-vip ConfigMap and follows its changes; cloud-config pools stay for other scopes", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.configMaps, configMap("kubevip", { "cidr-global": "203.0.113.0/30" }));
    client.seed(Resources.services, service("a"), service("b", { namespace: "team-a" }), service("c"));
    const text =
      "loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n  namespaces: { team-a: { addresses: [198.51.100.5-198.51.100.6] } }\n  kubeVipConfigMap: {}\n";
    const { provider } = await start(text, client);
    const lb = provider.loadBalancer!;
    const get = (name: string, ns = "default") => client.peek<Service>(Resources.services, name, ns)!;
    expect((await lb.ensureLoadBalancer(ctx, "k", get("a"), [])).ingress).toEqual([{ ip: "203.0.113.1" }]);
    expect((await lb.ensureLoadBalancer(ctx, "k", get("b", "team-a"), [])).ingress).toEqual([{ ip: "198.51.100.5" }]);
    await client.patch(
      Resources.configMaps,
      "kubevip",
      "merge",
      { data: { "cidr-global": "203.0.113.8/30" } },
      { namespace: "kube-system" },
    );
    await waitFor(() => provider.pools().pools.get("global")?.ranges[0]?.start === 0xcb007108n, {
      message: "new pools",
    });
    expect((await lb.ensureLoadBalancer(ctx, "k", get("c"), [])).ingress).toEqual([{ ip: "203.0.113.8" }]);
    // The address from the old pool stays with its Service: a pool change never takes an address away.
    expect((await lb.ensureLoadBalancer(ctx, "k", get("a"), [])).ingress).toEqual([{ ip: "203.0.113.1" }]);
  });

  test("a broken kube-vip scope refuses with the problem instead of falling back to the global pool", async () => {
    const client = new EmulatorKubeClient();
    client.seed(
      Resources.configMaps,
      configMap("kubevip", { "cidr-global": "192.0.2.0/28", "cidr-team-a": "10.0.0.1/24" }),
    );
    const [svc] = client.seed(Resources.services, service("a", { namespace: "team-a" }));
    const { provider } = await start("loadBalancer:\n  kubeVipConfigMap: {}\n", client);
    const err = await provider.loadBalancer!.ensureLoadBalancer(ctx, "k", svc!, []).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(
      'metal/load-balancers.ensure team-a/a: the pool for namespace "team-a" is misconfigured: cidr-team-a: "10.0.0.1/24" has host bits set; did you mean 10.0.0.0/24?',
    );
  });

  test("initialize waits for the Service cache through failing lists, then rebuilds from every Service", async () => {
    const client = new EmulatorKubeClient();
    const record = { [MetalAnnotations.allocatedIPs]: "192.0.2.5", [MetalAnnotations.allocatedFor]: "uid-default-a" };
    client.seed(Resources.services, service("a", { annotations: record }));
    client.fail(
      { method: "list", resource: "services" },
      new KubeApiError("unavailable", { status: 503, reason: "ServiceUnavailable" }),
      { times: 2 },
    );
    const { provider } = await start("loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n", client);
    expect(client.requests.filter((r) => r.method === "list" && r.resource === "services")).toHaveLength(3);
    expect(provider.book.allocationOf("default/a")?.ips).toEqual(["192.0.2.5"]);
  });

  test("opens no watch of its own: the ConfigMaps and Services come from the shared informers", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.configMaps, configMap("metal-inventory", { "node-1": "zone: rack-1\n" }));
    const runtime = testRuntime(client);
    // Another user of the same caches (the service controller, another provider part) asked first.
    const shared = [
      runtime.informers.configMaps({ namespace: "kube-system", name: "metal-inventory" }),
      runtime.informers.configMaps({ namespace: "kube-system", name: "kubevip" }),
      runtime.informers.services(),
    ];
    await Promise.all(shared.map((i) => i.whenSynced()));
    const before = client.requests.length;
    const text =
      "inventory: { configMap: {} }\nloadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n  kubeVipConfigMap: {}\n";
    const { provider } = await start(text, client, runtime);
    expect(client.requests.slice(before).filter((r) => r.method === "list" || r.method === "watch")).toEqual([]);
    expect(await provider.instancesV2.instanceMetadata(ctx, node("node-1"))).toMatchObject({ zone: "rack-1" });
  });

  test("a term that ends stops the ConfigMap's delivery, even while the shared informer runs on", async () => {
    const client = new EmulatorKubeClient();
    client.seed(Resources.configMaps, configMap("metal-inventory", { "node-1": "zone: rack-1\n" }));
    const runtime = testRuntime(client);
    const term = new AbortController();
    const { provider } = await start("inventory: { configMap: {} }\n", client, { ...runtime, signal: term.signal });
    term.abort();
    await client.patch(
      Resources.configMaps,
      "metal-inventory",
      "merge",
      { data: { "node-1": "zone: rack-2\n" } },
      { namespace: "kube-system" },
    );
    const informer = runtime.informers.configMaps({ namespace: "kube-system", name: "metal-inventory" });
    await waitFor(() => informer.get("kube-system/metal-inventory")?.data?.["node-1"] === "zone: rack-2\n", {
      message: "the shared informer sees the change",
    });
    expect(await provider.instancesV2.instanceMetadata(ctx, node("node-1"))).toMatchObject({ zone: "rack-1" });
  });

  test("every new term rebuilds from the Services, forgetting what the last term held in memory only", async () => {
    const client = new EmulatorKubeClient();
    const text = "loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n";
    const { provider, term } = await start(text, client);
    provider.book.set({ key: "default/phantom", uid: "x", namespace: "default", ports: "all" }, ["192.0.2.1"]);
    term.abort();
    const next = new AbortController();
    stops.push(() => next.abort());
    await provider.initialize(testProviderRuntime(client, next.signal, captureLogger().logger));
    expect(provider.book.size).toBe(0);
  });
});
