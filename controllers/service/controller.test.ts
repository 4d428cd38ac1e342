import { afterEach, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { FakeClock, waitFor } from "../../kube/testdata/fake-clock.ts";
import { defaultLoadBalancerName } from "../../providers/cloud.ts";
import { RetryError } from "../../providers/errors.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import type { StartResult } from "../context.ts";
import { type ControllerHarness, controllerHarness } from "../runtime/testing/controller-context.ts";
import { NO_LOAD_BALANCERS, SERVICE_RESYNC_MS, startServiceController } from "./controller.ts";
import { cleanup, excludeLabel, label, lbClass, node, service } from "./test-fixtures.ts";

let harness: ControllerHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

/** A fake cloud whose `getLoadBalancer` answers from the balancers it holds (the default answers a fixed flag). */
function cloudWithBalancers(): FakeCloud {
  const cloud = new FakeCloud();
  cloud.externalIP = "203.0.113.10";
  cloud.override("getLoadBalancer", async (_ctx, _cluster, svc) =>
    cloud.balancers.has(defaultLoadBalancerName(svc)) ? { ingress: [{ ip: cloud.externalIP }] } : undefined,
  );
  return cloud;
}

async function run(
  cloud: FakeCloud,
  init: { services?: Service[]; nodes?: Node[]; clock?: FakeClock; setup?: (h: ControllerHarness) => void } = {},
): Promise<{ h: ControllerHarness; result: StartResult }> {
  const h = controllerHarness({
    name: "service-lb-controller",
    provider: cloud,
    ...(init.clock ? { clock: init.clock } : {}),
    options: { concurrentServiceSyncs: 2 },
  });
  harness = h;
  h.client.seed(Resources.nodes, ...(init.nodes ?? []));
  h.client.seed(Resources.services, ...(init.services ?? []));
  init.setup?.(h);
  const result = await h.start(startServiceController);
  return { h, result };
}

const stored = (h: ControllerHarness, name: string) => h.client.peek<Service>(Resources.services, name, "default");
const ingressIP = (h: ControllerHarness, name: string) => stored(h, name)?.status?.loadBalancer?.ingress?.[0]?.ip;
const hostNames = (hosts: readonly Node[]) => hosts.map((n) => n.metadata?.name ?? "").sort();
const callsFor = (cloud: FakeCloud, name: string) =>
  cloud.calls.filter((c) => c.args.some((a) => (a as Service | undefined)?.metadata?.name === name));

describe("startServiceController", () => {
  test("declines with upstream's reason when the provider has no load balancers", async () => {
    const cloud = new FakeCloud();
    cloud.disableLoadBalancers = true;
    const { result } = await run(cloud);
    expect(result).toEqual({ started: false, reason: NO_LOAD_BALANCERS });
  });

  test("adds the finalizer before any cloud call, ensures the load balancer and writes the ingress", async () => {
    const cloud = cloudWithBalancers();
    const patches: { body: unknown; cloudCallsBefore: number }[] = [];
    const setup = (h: ControllerHarness) =>
      h.client.react({ method: "patch", resource: "services" }, (r) => {
        patches.push({ body: r.body, cloudCallsBefore: cloud.calls.length });
        return undefined;
      });
    const nodes = [node("n1"), node("n2")];
    const { h, result } = await run(cloud, { services: [service("web")], nodes, setup });
    expect(result.started).toBeTrue();
    await waitFor(() => ingressIP(h, "web") === "203.0.113.10", { message: "ingress written" });
    expect(stored(h, "web")?.metadata?.finalizers).toEqual([cleanup]);
    expect(patches[0]).toEqual({ body: { metadata: { finalizers: [cleanup] } }, cloudCallsBefore: 0 });
    expect(h.client.writes({ resource: "services" }).every((w) => w.subresource === "status")).toBeTrue();
    expect(cloud.ensureCalls.map((c) => hostNames(c.hosts))).toEqual([["n1", "n2"]]);
    const reasons = (await h.events()).map((e) => e.reason);
    expect(reasons).toContain("EnsuringLoadBalancer");
    expect(reasons).toContain("EnsuredLoadBalancer");
    expect(await h.metric("running_managed_controllers", { name: "service" })).toBe(1);
    await h.stop();
    expect(await h.metric("running_managed_controllers", { name: "service" })).toBe(0);
  });

  test("a port change ensures the load balancer again and updates the ingress ports", async () => {
    const cloud = cloudWithBalancers();
    const { h } = await run(cloud, { services: [service("web")], nodes: [node("n1")] });
    await waitFor(() => ingressIP(h, "web") !== undefined, { message: "first ingress" });
    const ports = [{ name: "https", port: 443, protocol: "TCP", nodePort: 30443, targetPort: 8443 }];
    await h.client.patch(Resources.services, "web", "merge", { spec: { ports } }, { namespace: "default" });
    const ingressPorts = () => stored(h, "web")?.status?.loadBalancer?.ingress?.[0]?.ports?.map((p) => p.port);
    await waitFor(() => ingressPorts()?.[0] === 443, { message: "ingress ports updated" });
    expect(cloud.balancers.get(defaultLoadBalancerName(service("web")))?.ports).toEqual([
      { port: 443, protocol: "TCP" },
    ]);
    expect(cloud.ensureCalls).toHaveLength(2);
  });

  test("a node added or excluded updates the load balancer with the new host set", async () => {
    const cloud = cloudWithBalancers();
    const { h } = await run(cloud, { services: [service("web")], nodes: [node("n1")] });
    await waitFor(() => ingressIP(h, "web") !== undefined, { message: "first ingress" });
    await h.client.create(Resources.nodes, node("n2"));
    await waitFor(() => cloud.updateCalls.length >= 1, { message: "update after node add" });
    expect(hostNames(cloud.updateCalls[0]?.hosts ?? [])).toEqual(["n1", "n2"]);
    const excluded = label(excludeLabel, "true")(node("n1"));
    await h.client.patch(Resources.nodes, "n1", "merge", { metadata: { labels: excluded.metadata?.labels } });
    await waitFor(() => cloud.updateCalls.length >= 2, { message: "update after node exclusion" });
    expect(hostNames(cloud.updateCalls[1]?.hosts ?? [])).toEqual(["n2"]);
    expect(await h.metric("service_controller_loadbalancer_sync_total")).toBe(2);
    expect((await h.events()).map((e) => e.reason)).toContain("UpdatedLoadBalancer");
  });

  test("the initial list of many nodes runs one node sync, not one per node", async () => {
    const cloud = cloudWithBalancers();
    const nodes = Array.from({ length: 50 }, (_, i) => node(`n${i}`));
    const { h } = await run(cloud, { services: [service("web")], nodes });
    await waitFor(() => ingressIP(h, "web") !== undefined, { message: "ingress written" });
    await waitFor(async () => (await h.metric("workqueue_depth", { name: "node" })) === 0, {
      message: "node queue drained",
    });
    const syncs = await h.metric("service_controller_nodesync_latency_seconds", { le: "+Inf" });
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThanOrEqual(2);
  });

  test("deleting the Service deletes its load balancer, then releases the finalizer so the Service goes", async () => {
    const cloud = cloudWithBalancers();
    const { h } = await run(cloud, { services: [service("web")], nodes: [node("n1")] });
    await waitFor(() => ingressIP(h, "web") !== undefined, { message: "first ingress" });
    const balancersAtRelease: number[] = [];
    h.client.react({ method: "patch", resource: "services" }, () => {
      balancersAtRelease.push(cloud.balancers.size);
      return undefined;
    });
    await h.client.delete(Resources.services, "web", { namespace: "default" });
    await waitFor(() => stored(h, "web") === undefined, { message: "service gone" });
    expect(cloud.callNames()).toContain("delete");
    expect(cloud.balancers.size).toBe(0);
    expect(balancersAtRelease[0]).toBe(0);
    const reasons = (await h.events()).map((e) => e.reason);
    expect(reasons).toContain("DeletingLoadBalancer");
    expect(reasons).toContain("DeletedLoadBalancer");
  });

  test("leaves a Service with a loadBalancerClass alone", async () => {
    const cloud = cloudWithBalancers();
    // Its own node port: the API refuses two Services one node port.
    const ownNodePort = (s: Service): Service => ({
      ...s,
      spec: { ...s.spec, ports: [{ port: 80, nodePort: 30081 }] },
    });
    const services = [service("other", lbClass("example.com/lb"), ownNodePort), service("web")];
    const { h } = await run(cloud, { services, nodes: [node("n1")] });
    await waitFor(() => ingressIP(h, "web") !== undefined, { message: "the ordinary service's ingress" });
    expect(callsFor(cloud, "other")).toEqual([]);
    expect(h.client.writes({ resource: "services", name: "other" })).toEqual([]);
    expect(stored(h, "other")?.metadata?.finalizers).toBeUndefined();
  });

  test("a RetryError retries after exactly its delay, without growing the back-off", async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const cloud = cloudWithBalancers();
    let attempts = 0;
    cloud.override("ensureLoadBalancer", async () => {
      attempts++;
      if (attempts === 1) throw new RetryError("the cloud is busy", 7_000);
      if (attempts === 2) throw new Error("the cloud fell over");
      return { ingress: [{ ip: "198.51.100.7" }] };
    });
    const { h } = await run(cloud, { services: [service("web")], nodes: [node("n1")], clock });
    // The next timer before the 30s resync is the retry; its time is the delay the worker chose.
    const retryScheduled = () => (clock.nextAt() ?? Number.POSITIVE_INFINITY) < t0 + SERVICE_RESYNC_MS;
    await waitFor(() => attempts === 1 && retryScheduled(), { message: "first failure scheduled" });
    expect(clock.nextAt()).toBe(t0 + 7_000);
    await clock.advance(7_000);
    await waitFor(() => attempts === 2 && retryScheduled(), { message: "second failure scheduled" });
    // The first back-off step (5s): the RetryError did not count as a failure.
    expect(clock.nextAt()).toBe(t0 + 12_000);
    await clock.advance(5_000);
    await waitFor(() => ingressIP(h, "web") === "198.51.100.7", { message: "ingress after retries" });
    expect(h.logs.some((l) => l.message.includes("retrying in 7000ms"))).toBeTrue();
  });
});
