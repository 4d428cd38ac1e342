/**
 * The metal load balancers and the annotations users write: a bad kube-vip annotation is one error before anything
 * is allocated; the user's kube-vip annotation wins over `spec.loadBalancerIP` for good (no flip on the next sync),
 * the disagreement is a Warning event, and the user's annotation is never rewritten or removed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Event, Service } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { findInCauseChain } from "../errors.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { testProviderRuntime } from "../runtime.ts";
import { rejection } from "../testing.ts";
import { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
import { parseMetalConfig } from "./config.ts";
import { conflictingRequestReason } from "./load-balancers.ts";
import { metalProvider } from "./provider.ts";
import { type ServiceTweaks, service } from "./testing.ts";

const config = "loadBalancer:\n  global: { addresses: [192.0.2.0/24] }\n";
const cluster = "kubernetes";
const ctx = { signal: new AbortController().signal };
const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

async function start(text = config) {
  const client = new EmulatorKubeClient();
  const provider = metalProvider(parseMetalConfig(text, "test"));
  const term = new AbortController();
  stops.push(() => term.abort());
  const { logger } = captureLogger();
  await provider.initialize(testProviderRuntime(client, term.signal, logger));
  return { lb: provider.loadBalancer!, client };
}

const create = (client: EmulatorKubeClient, name: string, tweaks: ServiceTweaks = {}): Service =>
  client.seed(Resources.services, service(name, tweaks))[0]!;
const stored = (client: EmulatorKubeClient, name: string) => client.peek<Service>(Resources.services, name, "default")!;
const ipsOf = (status: { ingress?: { ip?: string }[] }) => (status.ingress ?? []).map((i) => i.ip);
const asked = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips });

describe("metal load balancers and the annotations users write", () => {
  test("an unreadable kube-vip annotation is one error naming every bad address, and nothing is allocated", async () => {
    const { lb, client } = await start();
    const web = create(client, "web", { annotations: asked("192.0.2.x,192.0.2.300") });
    const err = await rejection(() => lb.ensureLoadBalancer(ctx, cluster, web, []));
    expect(findInCauseChain(err, InvalidAnnotationsError)).toBeDefined();
    expect(err.message).toBe(
      'metal/load-balancers.ensure default/web: 1 invalid annotation: kube-vip.io/loadbalancerIPs="192.0.2.x,192.0.2.300": not an IPv4 or IPv6 address: "192.0.2.x", "192.0.2.300"; expected a comma-separated list, each an IPv4 or IPv6 address',
    );
    expect(client.writes()).toEqual([]);
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, create(client, "next"), []))).toEqual(["192.0.2.1"]);
  });

  test("the user's kube-vip annotation wins over spec.loadBalancerIP for good, and is never rewritten", async () => {
    const { lb, client } = await start();
    const both = create(client, "both", { annotations: asked("192.0.2.6"), loadBalancerIP: "192.0.2.7" });
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, both, []))).toEqual(["192.0.2.6"]);
    // The next syncs see the Service as the record left it: still the annotation's address, and no further write.
    client.clearRequests();
    for (let i = 0; i < 2; i++) {
      expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, stored(client, "both"), []))).toEqual(["192.0.2.6"]);
    }
    expect(client.writes({ resource: "services" })).toEqual([]);
    expect(stored(client, "both").metadata?.annotations).toEqual({
      [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.6",
      [MetalAnnotations.allocatedIPs]: "192.0.2.6",
      [MetalAnnotations.allocatedFor]: "uid-default-both",
    });
  });

  test("the disagreement is a Warning event naming both values; repeats count on the same event", async () => {
    const { lb, client } = await start();
    const both = create(client, "both", { annotations: asked("192.0.2.6"), loadBalancerIP: "192.0.2.7" });
    await lb.ensureLoadBalancer(ctx, cluster, both, []);
    await lb.ensureLoadBalancer(ctx, cluster, stored(client, "both"), []);
    const warnings = () => client.all<Event>(Resources.events).filter((e) => e.reason === conflictingRequestReason);
    await waitFor(() => warnings()[0]?.count === 2, { message: "one Warning event, counted twice" });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({
      type: "Warning",
      involvedObject: { kind: "Service", namespace: "default", name: "both" },
      message:
        'kube-vip.io/loadbalancerIPs ("192.0.2.6") and spec.loadBalancerIP ("192.0.2.7") ask for different addresses: the annotation wins and spec.loadBalancerIP is ignored; remove one of them',
    });
  });

  test("without the user's annotation, spec.loadBalancerIP moves the Service again", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "web", { loadBalancerIP: "192.0.2.7" }), []);
    const moved = structuredClone(stored(client, "web"));
    moved.spec = { ...moved.spec, loadBalancerIP: "192.0.2.8" };
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, moved, []))).toEqual(["192.0.2.8"]);
    expect(stored(client, "web").metadata?.annotations?.[KubeVipAnnotations.loadBalancerIPs]).toBe("192.0.2.8");
  });

  test("a user who takes over the provider's copy owns it from then on", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "web"), []);
    const edited = structuredClone(stored(client, "web"));
    edited.metadata!.annotations![KubeVipAnnotations.loadBalancerIPs] = "192.0.2.9";
    await client.update(Resources.services, edited, { namespace: "default" });
    expect(ipsOf(await lb.ensureLoadBalancer(ctx, cluster, stored(client, "web"), []))).toEqual(["192.0.2.9"]);
    const annotations = stored(client, "web").metadata?.annotations ?? {};
    expect(annotations[KubeVipAnnotations.loadBalancerIPs]).toBe("192.0.2.9");
    expect(annotations[MetalAnnotations.kubeVipEcho]).toBeUndefined();
  });

  test("deleting leaves the user's annotation in place and removes only the provider's", async () => {
    const { lb, client } = await start();
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "mine", { annotations: asked("192.0.2.6") }), []);
    await lb.ensureLoadBalancer(ctx, cluster, create(client, "auto"), []);
    await lb.ensureLoadBalancerDeleted(ctx, cluster, stored(client, "mine"));
    await lb.ensureLoadBalancerDeleted(ctx, cluster, stored(client, "auto"));
    expect(stored(client, "mine").metadata?.annotations).toEqual(asked("192.0.2.6"));
    expect(stored(client, "auto").metadata?.annotations ?? {}).toEqual({});
  });
});
