import { afterEach, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { FakeClock, waitFor } from "../../kube/testdata/fake-clock.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { type ControllerOptions, ControllerStartError } from "../context.ts";
import { type ControllerHarness, controllerHarness } from "../runtime/testing/controller-context.ts";
import {
  RouteDeclines,
  routeRelevantUpdate,
  routesRateLimiter,
  startRouteController,
  WATCH_BASED_ROUTES_GATE,
} from "./controller.ts";
import { addresses, internalIP, node, podCIDRs } from "./test-fixtures.ts";

let harness: ControllerHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const PERIOD = 10_000;

function setup(cloud: FakeCloud, nodes: Node[], options: Partial<ControllerOptions> = {}, clock = new FakeClock()) {
  const h = controllerHarness({
    name: "node-route-controller",
    provider: cloud,
    clock,
    options: { clusterCIDR: "10.244.0.0/16", routeReconciliationPeriodMs: PERIOD, ...options },
  });
  harness = h;
  h.client.seed(Resources.nodes, ...nodes);
  return { h, clock };
}

const routeKeys = (cloud: FakeCloud) => [...cloud.routeMap.keys()].sort();
const networkCondition = (h: ControllerHarness, name: string) => {
  const c = h.client
    .peek<Node>(Resources.nodes, name)
    ?.status?.conditions?.find((x) => x.type === "NetworkUnavailable");
  return c && `${c.status}/${c.reason}`;
};
const n1 = () => node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("192.0.2.1")));
const n2 = () => node("n2", podCIDRs("10.244.2.0/24"), addresses(internalIP("192.0.2.2")));

describe("startRouteController: start rules", () => {
  const cases: [string, Partial<ControllerOptions>, boolean, string][] = [
    ["--configure-cloud-routes=false", { configureCloudRoutes: false }, true, RouteDeclines.notConfigured],
    ["a provider without routes", {}, false, RouteDeclines.noRoutes],
    ["an empty --cluster-cidr", { clusterCIDR: "" }, true, RouteDeclines.noClusterCIDR],
    ["a blank --cluster-cidr", { clusterCIDR: "  " }, true, RouteDeclines.noClusterCIDR],
  ];
  test.each(cases)("declines for %s", async (_, options, routes, reason) => {
    const cloud = new FakeCloud();
    cloud.disableRoutes = !routes;
    const { h } = setup(cloud, [], options);
    expect(await h.start(startRouteController)).toEqual({ started: false, reason });
  });

  test("the empty --cluster-cidr reason names both ways out", () => {
    expect(RouteDeclines.noClusterCIDR).toContain("--cluster-cidr");
    expect(RouteDeclines.noClusterCIDR).toContain("--configure-cloud-routes=false");
  });

  test.each([
    [
      "10.0.0.0/8,192.168.0.0/16",
      "len of ClusterCIDRs==2 and they are not configured as dual stack (at least one from each IPFamily",
    ],
    ["10.0.0.0/8,fd00::/56,10.1.0.0/16", "length of clusterCIDRs is:3 more than max allowed of 2"],
    ["10.0.0.0/33", 'failed to parse cidr value:"10.0.0.0/33" with error:invalid CIDR address: 10.0.0.0/33'],
  ])("an invalid --cluster-cidr %s is a fatal start error", async (clusterCIDR, message) => {
    const { h } = setup(new FakeCloud(), [], { clusterCIDR });
    const failure = await h.start(startRouteController).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ControllerStartError);
    expect((failure as Error).message).toBe(message);
  });
});

describe("startRouteController: periodic reconcile", () => {
  test("nodes with pod CIDRs get routes and NetworkUnavailable=False/RouteCreated", async () => {
    const cloud = new FakeCloud();
    const { h } = setup(cloud, [n1(), n2(), node("n3")]);
    expect((await h.start(startRouteController)).started).toBeTrue();
    await waitFor(() => networkCondition(h, "n1") !== undefined && networkCondition(h, "n2") !== undefined, {
      message: "conditions written",
    });
    expect(routeKeys(cloud)).toEqual(["kubernetes-n1-10.244.1.0/24", "kubernetes-n2-10.244.2.0/24"]);
    expect(cloud.routeMap.get("kubernetes-n1-10.244.1.0/24")?.route.targetNodeAddresses).toEqual([
      internalIP("192.0.2.1"),
    ]);
    expect(networkCondition(h, "n1")).toBe("False/RouteCreated");
    expect(networkCondition(h, "n3")).toBeUndefined();
    const writes = h.client.writes({ resource: "nodes" });
    expect(writes.every((w) => w.subresource === "status" && w.patchType === "strategic")).toBeTrue();
    expect(await h.metric("route_controller_route_sync_total")).toBe(1);
    expect(await h.metric("running_managed_controllers", { name: "route" })).toBe(1);
    await h.stop();
    expect(await h.metric("running_managed_controllers", { name: "route" })).toBe(0);
  });

  test("a removed node's route is deleted on the next period", async () => {
    const cloud = new FakeCloud();
    const { h, clock } = setup(cloud, [n1(), n2()]);
    await h.start(startRouteController);
    await waitFor(() => routeKeys(cloud).length === 2, { message: "routes created" });
    await waitFor(() => clock.pending() > 0, { message: "the next period scheduled" });
    await h.client.delete(Resources.nodes, "n2");
    const cached = h.informers.forResource<Node>(Resources.nodes);
    await waitFor(() => cached.get("n2") === undefined, { message: "n2 gone from the cache" });
    await clock.advance(PERIOD);
    await waitFor(() => routeKeys(cloud).length === 1, { message: "n2's route deleted" });
    expect(routeKeys(cloud)).toEqual(["kubernetes-n1-10.244.1.0/24"]);
    expect(await h.metric("route_controller_route_sync_total")).toBe(2);
  });

  test("a failed creation leaves NetworkUnavailable=True and records FailedToCreateRoute", async () => {
    const cloud = new FakeCloud();
    cloud.override("createRoute", async () => {
      throw new Error("quota exceeded");
    });
    const { h } = setup(cloud, [n1()]);
    await h.start(startRouteController);
    await waitFor(() => networkCondition(h, "n1") !== undefined, { message: "condition written" });
    expect(networkCondition(h, "n1")).toBe("True/NoRouteCreated");
    const events = await h.events();
    expect(events.map((e) => [e.reason, e.source?.component, e.involvedObject?.apiVersion])).toEqual([
      ["FailedToCreateRoute", "route_controller", "v1"],
    ]);
  });
});

describe("startRouteController: watch-based reconcile", () => {
  const gates = { featureGates: new Map([[WATCH_BASED_ROUTES_GATE, true]]) };

  test("reconciles when a node is added, rate limited to one pass per 10s", async () => {
    const cloud = new FakeCloud();
    const { h, clock } = setup(cloud, [n1()], gates);
    await h.start(startRouteController);
    await waitFor(() => routeKeys(cloud).length === 1, { message: "first route" });
    await h.client.create(Resources.nodes, n2());
    await waitFor(() => clock.pending() > 0, { message: "the next pass scheduled" });
    expect((clock.nextAt() ?? 0) - clock.now()).toBeLessThanOrEqual(10_000);
    await clock.advanceToNext();
    await waitFor(() => routeKeys(cloud).length === 2, { message: "second route" });
    expect(networkCondition(h, "n2")).toBe("False/RouteCreated");
    expect(await h.metric("route_controller_route_sync_total")).toBe(2);
  });
});

describe("watch-based helpers", () => {
  const rv =
    (v: string) =>
    (n: Node): Node => ({ ...n, metadata: { ...n.metadata, resourceVersion: v } });
  const labelled = (n: Node): Node => ({ ...n, metadata: { ...n.metadata, labels: { a: "b" } } });
  test.each([
    ["a resync (same resourceVersion)", true, rv("1")(n1()), rv("1")(n1())],
    ["new pod CIDRs", true, rv("1")(n1()), rv("2")(podCIDRs("10.244.9.0/24")(n1()))],
    ["new addresses", true, rv("1")(n1()), rv("2")(addresses(internalIP("192.0.2.9"))(n1()))],
    ["pod CIDRs from absent to empty", true, rv("1")(node("x")), rv("2")(podCIDRs()(node("x")))],
    ["a label change", false, rv("1")(n1()), rv("2")(labelled(n1()))],
  ] as const)("a node update with %s → reconcile: %p", (_, expected, old, cur) => {
    expect(routeRelevantUpdate(old, cur)).toBe(expected);
  });

  test("the limiter lets one pass through at once, then spaces them 10s apart, never waiting longer", () => {
    let now = 0;
    const limiter = routesRateLimiter(() => now);
    expect([limiter.when("routes"), limiter.when("routes"), limiter.when("routes")]).toEqual([0, 10_000, 10_000]);
    now = 30_000;
    expect(limiter.when("routes")).toBe(0);
  });
});
