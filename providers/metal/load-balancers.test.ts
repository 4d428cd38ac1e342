import { afterEach, describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { testProviderRuntime } from "../runtime.ts";
import { rejection } from "../testing.ts";
import { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
import { parseMetalConfig } from "./config.ts";
import { metalProvider } from "./provider.ts";
import { type ServiceTweaks, service } from "./testing.ts";

const config = `
loadBalancer:
  global: { addresses: [192.0.2.0/24, "2001:db8::/120"] }
  namespaces: { small: { addresses: [198.51.100.10-198.51.100.11] } }
`;
const cluster = "kubernetes";
const ctx = { signal: new AbortController().signal };
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

async function start(client = new EmulatorKubeClient(), text = config) {
  const provider = metalProvider(parseMetalConfig(text, "test"));
  const term = new AbortController();
  stops.push(() => term.abort());
  const { logger, logs } = captureLogger();
  await provider.initialize(testProviderRuntime(client, term.signal, logger));
  return { provider, lb: provider.loadBalancer!, client, term, logs };
}

/** Stores the Service and returns it as stored (with its UID). */
function create(client: EmulatorKubeClient, name: string, tweaks: ServiceTweaks = {}): Service {
  return client.seed(Resources.services, service(name, tweaks))[0]!;
}

const stored = (client: EmulatorKubeClient, name: string, namespace = "default") =>
  client.peek<Service>(Resources.services, name, namespace)!;

const ipsOf = (status: { ingress?: { ip?: string }[] }) => (status.ingress ?? []).map((i) => i.ip);

describe("metal load balancers", () => {
  test("ensure returns the allocated ingress and records it on the Service before returning", async () => {
    const { lb, client } = await start();
    const svc = create(client, "web");
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, svc, []))).toEqual(["192.0.2.1"]);
    expect(stored(client, "web").metadata?.annotations).toEqual({
      [MetalAnnotations.allocatedIPs]: "192.0.2.1",
      [MetalAnnotations.allocatedFor]: svc.metadata?.uid ?? "",
      [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.1",
      [MetalAnnotations.kubeVipEcho]: "192.0.2.1",
    });
    expect(await lb.getLoadBalancer(ctx, cluster, svc)).toEqual({ ingress: [{ ip: "192.0.2.1" }] });
  });

  test("a dual-stack Service gets one address of each family, in its family order", async () => {
    const { lb, client } = await start();
    const svc = create(client, "dual", { policy: "RequireDualStack", families: ["IPv6", "IPv4"] });
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, svc, []))).toEqual(["2001:db8::1", "192.0.2.1"]);
    expect(stored(client, "dual").metadata?.annotations?.[MetalAnnotations.allocatedIPs]).toBe("2001:db8::1,192.0.2.1");
  });

  test("ensure is idempotent: no second write once the Service carries the record", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "web"), []);
    client.clearRequests();
    const again = await lb.ensureLoadBalancer(ctx, cluster, stored(client, "web"), []);
    expect(ipsOf(again)).toEqual(["192.0.2.1"]);
    expect(client.writes()).toEqual([]);
  });

  test("the kube-vip annotation is not written when turned off", async () => {
    const { lb, client } = await start(undefined, `${config}  kubeVipAnnotation: false\n`);
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "web"), []);
    expect(Object.keys(stored(client, "web").metadata?.annotations ?? {}).sort()).toEqual([
      MetalAnnotations.allocatedFor,
      MetalAnnotations.allocatedIPs,
    ]);
  });

  test("a refused request is an error naming the Service, the pool and what is free", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "a", { namespace: "small" }), []);
    const b = create(client, "b", { namespace: "small", loadBalancerIP: "198.51.100.10" });
    const err = await rejection(() => lb.ensureLoadBalancer(ctx, cluster, b, []));
    expect(err.message).toBe(
      'metal/load-balancers.ensure small/b: requested address 198.51.100.10 (from spec.loadBalancerIP) is in use: held by Service small/a, and sharing is not allowed for namespace "small"; pool for namespace "small" (cloud-config loadBalancer.namespaces.small) has free: 198.51.100.11 (1 of 2)',
    );
    expect(stored(client, "b", "small").metadata?.annotations).toBeUndefined();
  });

  test("a failed record write lets the address go again, and the next ensure succeeds", async () => {
    const { lb, client } = await start();
    const web = create(client, "web");
    client.fail(
      { method: "patch", resource: "services", name: "web" },
      new KubeApiError("boom", { status: 500, reason: "InternalError" }),
      {
        times: 1,
      },
    );
    const err = await rejection(() => lb.ensureLoadBalancer(ctx, cluster, web, []));
    expect(err.message).toBe("metal/load-balancers.ensure default/web: could not record 192.0.2.1 on the Service");
    expect(await lb.getLoadBalancer(ctx, cluster, web)).toBeUndefined();
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, create(client, "other"), []))).toEqual(["192.0.2.1"]);
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, web, []))).toEqual(["192.0.2.2"]);
  });

  test("a Service deleted while it is ensured holds nothing", async () => {
    const { lb, client } = await start();
    const ghost = service("ghost");
    const err = await rejection(() => lb.ensureLoadBalancer(ctx, cluster, ghost, []));
    expect(err.message).toContain("the Service is gone; its addresses were not recorded");
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, create(client, "real"), []))).toEqual(["192.0.2.1"]);
  });

  test("delete removes the record, releases the address, and succeeds when there is nothing to delete", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "web"), []);
    await lb.ensureLoadBalancerDeleted(ctx, cluster, stored(client, "web"));
    expect(stored(client, "web").metadata?.annotations ?? {}).toEqual({});
    expect(await lb.getLoadBalancer(ctx, cluster, stored(client, "web"))).toBeUndefined();
    await lb.ensureLoadBalancerDeleted(ctx, cluster, stored(client, "web"));
    await lb.ensureLoadBalancerDeleted(ctx, cluster, service("never-existed"));
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, create(client, "next"), []))).toEqual(["192.0.2.1"]);
  });

  test("a record the book does not know still reports a load balancer, so the delete path removes it", async () => {
    const { lb, client } = await start();
    const uid = "uid-default-stray";
    const annotations = { [MetalAnnotations.allocatedIPs]: "192.0.2.9", [MetalAnnotations.allocatedFor]: uid };
    const stray = create(client, "stray", { uid, annotations, type: "ClusterIP" });
    expect(await lb.getLoadBalancer(ctx, cluster, stray)).toEqual({ ingress: [{ ip: "192.0.2.9" }] });
    await lb.ensureLoadBalancerDeleted(ctx, cluster, stray);
    expect(stored(client, "stray").metadata?.annotations ?? {}).toEqual({});
    expect(await lb.getLoadBalancer(ctx, cluster, stored(client, "stray"))).toBeUndefined();
  });

  test("delete of a Service already gone from the API releases its address", async () => {
    const { lb, client } = await start();
    const web = create(client, "web");
    await lb.ensureLoadBalancer(ctx, cluster, web, []);
    await client.delete(Resources.services, "web", { namespace: "default" });
    await lb.ensureLoadBalancerDeleted(ctx, cluster, web);
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, create(client, "next"), []))).toEqual(["192.0.2.1"]);
  });

  test("a Service re-created under the same name gets a fresh allocation; the old one is released", async () => {
    const { lb, client } = await start();
    const first = create(client, "web", { uid: "first" });
    await lb.ensureLoadBalancer(ctx, cluster, first, []);
    await client.delete(Resources.services, "web", { namespace: "default" });
    const second = create(client, "web", { uid: "second" });
    expect(await lb.getLoadBalancer(ctx, cluster, second)).toBeUndefined();
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, second, []))).toEqual(["192.0.2.1"]);
    expect(stored(client, "web").metadata?.annotations?.[MetalAnnotations.allocatedFor]).toBe("second");
  });

  test("updateLoadBalancer touches nothing", async () => {
    const { lb, client } = await start();
    client.clearRequests();
    await lb.updateLoadBalancer(ctx, cluster, create(client, "web"), []);
    expect(client.requests).toEqual([]);
  });

  test("names are the upstream default", async () => {
    const { lb } = await start();
    expect(lb.getLoadBalancerName(ctx, cluster, service("x", { uid: "12345678-90ab-cdef-1234-567890abcdef" }))).toBe(
      "a1234567890abcdef1234567890abcde",
    );
  });

  test("nothing is allocated before initialize or after the term ended", async () => {
    const provider = metalProvider(parseMetalConfig(config, "test"));
    const early = await rejection(() => provider.loadBalancer!.ensureLoadBalancer(ctx, cluster, service("a"), []));
    expect(early.message).toContain("the provider has not been initialised");
    const { lb, client, term } = await start();
    term.abort();
    const late = await rejection(() => lb.ensureLoadBalancer(ctx, cluster, create(client, "a"), []));
    expect(late.message).toContain("the leadership term has ended; not allocating");
    expect(await rejection(() => lb.getLoadBalancer(ctx, cluster, service("a")))).toBeInstanceOf(Error);
  });

  test("without a loadBalancer section the provider offers no load balancers", async () => {
    expect(metalProvider(parseMetalConfig("", "test")).loadBalancer).toBeUndefined();
  });
});
