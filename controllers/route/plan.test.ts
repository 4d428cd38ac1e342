import { describe, expect, test } from "bun:test";
import { parseClusterCIDRs } from "./cluster-cidr.ts";
import {
  failedToCreateRouteEvent,
  formatKubeTime,
  networkConditionPatch,
  networkUnavailableCondition,
  nodeReference,
  notResponsibleForRoute,
  planRoutes,
  routesCreatedByNode,
  sameNodeAddresses,
} from "./plan.ts";
import {
  addresses,
  condition,
  hostname,
  internalIP,
  legacyPodCIDR,
  node,
  podCIDRs,
  route,
  uid,
} from "./test-fixtures.ts";

const v4 = parseClusterCIDRs("10.244.0.0/16");
const dual = parseClusterCIDRs("10.244.0.0/16,fd00:10::/56");

const summary = (plan: ReturnType<typeof planRoutes>) => ({
  deletes: plan.deletes.map((d) => `${d.route.targetNode} ${d.route.destinationCIDR}`),
  creates: plan.creates.map((c) => `${c.nodeName} ${c.route.destinationCIDR} hint=${c.nameHint}`),
});

describe("planRoutes", () => {
  test("creates a route per pod CIDR with the node UID as name hint and the node's addresses", () => {
    const n = node("n1", uid("u-1"), podCIDRs("10.244.1.0/24"), addresses(internalIP("192.168.0.1")));
    const plan = planRoutes([n], [], v4);
    expect(plan.creates).toEqual([
      {
        nodeName: "n1",
        nameHint: "u-1",
        route: {
          name: "",
          targetNode: "n1",
          targetNodeAddresses: [internalIP("192.168.0.1")],
          destinationCIDR: "10.244.1.0/24",
        },
      },
    ]);
    expect(plan.creates[0]?.route.enableNodeAddresses).toBeUndefined();
    expect(plan.actions.get("n1")).toEqual(new Map([["10.244.1.0/24", "add"]]));
    expect(plan.deletes).toEqual([]);
  });

  test("gives a dual-stack node one route per family, both with the same name hint", () => {
    const n = node("n1", podCIDRs("10.244.1.0/24", "fd00:10::100/120"));
    expect(summary(planRoutes([n], [], dual)).creates).toEqual([
      "n1 10.244.1.0/24 hint=uid-n1",
      "n1 fd00:10::100/120 hint=uid-n1",
    ]);
  });

  test("keeps a route that matches and does nothing else", () => {
    const n = node("n1", podCIDRs("10.244.1.0/24"));
    const plan = planRoutes([n], [route("n1", "10.244.1.0/24")], v4);
    expect(summary(plan)).toEqual({ deletes: [], creates: [] });
    expect(plan.actions.get("n1")?.get("10.244.1.0/24")).toBe("keep");
  });

  test.each([
    ["a node that is gone", [], [route("gone", "10.244.9.0/24")], ["gone 10.244.9.0/24"], []],
    ["a route without target node", [], [route("", "10.244.9.0/24")], [" 10.244.9.0/24"], []],
    [
      "a CIDR no longer assigned to the node",
      [node("n1", podCIDRs("10.244.2.0/24"))],
      [route("n1", "10.244.1.0/24")],
      ["n1 10.244.1.0/24"],
      ["n1 10.244.2.0/24 hint=uid-n1"],
    ],
    [
      "a node without pod CIDRs (the legacy podCIDR field is ignored)",
      [node("n1", legacyPodCIDR("10.244.1.0/24"))],
      [route("n1", "10.244.1.0/24")],
      ["n1 10.244.1.0/24"],
      [],
    ],
    [
      "a blackhole route, which is not re-created in the same pass",
      [node("n1", podCIDRs("10.244.1.0/24"))],
      [route("n1", "10.244.1.0/24", { blackhole: true })],
      ["n1 10.244.1.0/24"],
      [],
    ],
  ])("deletes the route of %s", (_name, nodes, routes, deletes, creates) => {
    expect(summary(planRoutes(nodes, routes, v4))).toEqual({ deletes, creates });
  });

  test.each([
    ["outside every cluster CIDR", "192.168.1.0/24", v4],
    ["with an unparsable CIDR", "not-a-cidr", v4],
    ["covering the whole cluster CIDR from outside", "0.0.0.0/0", v4],
    ["of the other family", "fd00:10::/64", v4],
  ])("leaves alone a route %s", (_name, cidr, clusterCIDRs) => {
    const plan = planRoutes([], [route("gone", cidr), route("gone2", cidr, { blackhole: true })], clusterCIDRs);
    expect(plan.deletes).toEqual([]);
  });

  test.each([
    ["its first address is inside", "10.244.255.0/24", "10.244.0.0/16", undefined],
    ["its last address is inside", "10.244.0.0/15", "10.245.0.0/16", undefined],
    ["it is inside the IPv6 cluster CIDR", "fd00:10::100/120", "10.244.0.0/16,fd00:10::/56", undefined],
    ["neither end is inside", "10.0.0.0/8", "10.244.0.0/16", "10.0.0.0/8 is outside the cluster CIDRs"],
    ["the CIDR does not parse", "10.244.1.0", "10.244.0.0/16", 'unparsable CIDR "10.244.1.0"'],
  ])("decides responsibility: %s", (_name, cidr, flag, want) => {
    expect(notResponsibleForRoute(route("n", cidr), parseClusterCIDRs(flag))).toBe(want);
  });

  test("ignores node addresses unless the route opts in", () => {
    const n = node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("192.168.0.2")));
    const r = route("n1", "10.244.1.0/24", { targetNodeAddresses: [internalIP("192.168.0.1")] });
    expect(summary(planRoutes([n], [r], v4))).toEqual({ deletes: [], creates: [] });
  });

  test("keeps an opted-in route whose addresses are the same in another order", () => {
    const n = node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("192.168.0.1"), hostname("n1")));
    const r = route("n1", "10.244.1.0/24", {
      enableNodeAddresses: true,
      targetNodeAddresses: [hostname("n1"), internalIP("192.168.0.1")],
    });
    expect(summary(planRoutes([n], [r], v4))).toEqual({ deletes: [], creates: [] });
  });

  test("updates (deletes and re-creates) an opted-in route whose addresses changed, waiting for the delete", () => {
    const n = node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("192.168.0.2")));
    const r = route("n1", "10.244.1.0/24", {
      enableNodeAddresses: true,
      targetNodeAddresses: [internalIP("10.0.0.1")],
    });
    const plan = planRoutes([n], [r], v4);
    expect(summary(plan)).toEqual({ deletes: ["n1 10.244.1.0/24"], creates: ["n1 10.244.1.0/24 hint=uid-n1"] });
    expect(plan.deletes[0]?.reason).toBe("node addresses changed");
    expect(plan.actions.get("n1")?.get("10.244.1.0/24")).toBe("update");
    expect(plan.waitForDeletes).toBe(true);
  });

  test("waits for deletions only when the first listed route opts in to node addresses", () => {
    const plain = route("a", "10.244.1.0/24");
    const optedIn = route("b", "10.244.2.0/24", { enableNodeAddresses: true });
    expect(planRoutes([], [plain, optedIn], v4).waitForDeletes).toBe(false);
    expect(planRoutes([], [optedIn, plain], v4).waitForDeletes).toBe(true);
    expect(planRoutes([], [], v4).waitForDeletes).toBe(false);
  });

  test("compares addresses as upstream does: same length and each found in the other", () => {
    const a = internalIP("1.1.1.1");
    const b = internalIP("2.2.2.2");
    expect(sameNodeAddresses([a, b], [b, a])).toBe(true);
    expect(sameNodeAddresses([a], [a, b])).toBe(false);
    expect(sameNodeAddresses([a, a], [a, b])).toBe(true); // upstream quirk, kept
    expect(sameNodeAddresses([a], [{ type: "ExternalIP", address: "1.1.1.1" }])).toBe(false);
  });
});

describe("routesCreatedByNode", () => {
  const nodes = [
    node("ready", podCIDRs("10.244.1.0/24")),
    node("new", podCIDRs("10.244.2.0/24", "fd00:10::200/120")),
    node("routes-only"),
    node("bare"),
  ];
  const routes = [route("ready", "10.244.1.0/24"), route("routes-only", "10.244.3.0/24")];
  const plan = planRoutes(nodes, routes, dual);

  test.each([
    ["every creation succeeded", () => true, { ready: true, new: true, "routes-only": false }],
    [
      "one of two creations failed",
      (_n: string, cidr: string) => cidr.includes("."),
      { ready: true, new: false, "routes-only": false },
    ],
  ])("reports per node when %s; nodes without entry are left out", (_name, created, want) => {
    const got = Object.fromEntries(
      routesCreatedByNode(plan, nodes, created).map((s) => [s.node.metadata?.name, s.routesCreated]),
    );
    expect(got).toEqual(want);
  });
});

describe("networkUnavailableCondition", () => {
  const now = Date.parse("2026-03-01T10:20:30.456Z");
  const created = {
    type: "NetworkUnavailable",
    status: "False",
    lastHeartbeatTime: "2026-03-01T10:20:30Z",
    lastTransitionTime: "2026-03-01T10:20:30Z",
    reason: "RouteCreated",
    message: "RouteController created a route",
  };
  const notCreated = {
    ...created,
    status: "True",
    reason: "NoRouteCreated",
    message: "RouteController failed to create a route",
  };

  test.each([
    ["absent", node("n"), true, created],
    ["absent", node("n"), false, notCreated],
    [
      "set by a CNI",
      node("n", condition({ type: "NetworkUnavailable", status: "False", reason: "CalicoIsUp" })),
      true,
      created,
    ],
    [
      "the opposite",
      node("n", condition({ type: "NetworkUnavailable", status: "True", reason: "NoRouteCreated" })),
      true,
      created,
    ],
    [
      "the opposite",
      node("n", condition({ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" })),
      false,
      notCreated,
    ],
    [
      "already ours",
      node("n", condition({ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" })),
      true,
      undefined,
    ],
    [
      "already ours",
      node("n", condition({ type: "NetworkUnavailable", status: "True", reason: "NoRouteCreated" })),
      false,
      undefined,
    ],
  ])("writes the condition when it is %s (routes created: %p)", (_state, n, routesCreated, want) => {
    expect(networkUnavailableCondition(n, routesCreated, now)).toEqual(want);
  });

  test("keeps Go's field order and whole-second times in the patch", () => {
    const c = networkUnavailableCondition(node("n"), true, now)!;
    expect(JSON.stringify(networkConditionPatch(c))).toBe(
      '{"status":{"conditions":[{"type":"NetworkUnavailable","status":"False","lastHeartbeatTime":"2026-03-01T10:20:30Z","lastTransitionTime":"2026-03-01T10:20:30Z","reason":"RouteCreated","message":"RouteController created a route"}]}}',
    );
    expect(formatKubeTime(0)).toBe("1970-01-01T00:00:00Z");
  });
});

describe("FailedToCreateRoute", () => {
  test("reads as upstream's message, with a Go duration, about a v1 Node reference", () => {
    const n = node("n1", uid("u-1"), podCIDRs("10.244.1.0/24"));
    const [create] = planRoutes([n], [], v4).creates;
    expect(failedToCreateRouteEvent(create!, 1234.5, new Error("quota exceeded"))).toEqual({
      type: "Warning",
      reason: "FailedToCreateRoute",
      message: "Could not create route u-1 10.244.1.0/24 for node n1 after 1.2345s: quota exceeded",
    });
    expect(nodeReference(n)).toEqual({ apiVersion: "v1", kind: "Node", name: "n1", uid: "u-1" });
  });
});
