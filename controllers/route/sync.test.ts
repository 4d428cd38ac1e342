import { describe, expect, test } from "bun:test";
import { createConsola } from "consola";
import { Resources } from "../../kube/client-types.ts";
import type { Node, NodeCondition, ObjectReference } from "../../kube/objects.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import type { CallContext, Route } from "../../providers/cloud.ts";
import { RetryError, wrapError } from "../../providers/errors.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { asCached } from "../runtime/testing/cached.ts";
import { parseClusterCIDRs } from "./cluster-cidr.ts";
import type { RouteEvent } from "./plan.ts";
import { type RouteSyncDeps, reconcileNodeRoutes } from "./sync.ts";
import { addresses, condition, internalIP, node, podCIDRs, uid } from "./test-fixtures.ts";

const logger = createConsola({ level: -999 });

function harness(cloud: FakeCloud, nodes: Node[], over: Partial<RouteSyncDeps> = {}) {
  const conditions: { node: string; condition: NodeCondition }[] = [];
  const events: { ref: ObjectReference; event: RouteEvent }[] = [];
  let clock = Date.parse("2026-03-01T00:00:00Z");
  let reconciles = 0;
  const deps: RouteSyncDeps = {
    routes: cloud.routes!,
    clusterName: "kubernetes",
    clusterCIDRs: parseClusterCIDRs("10.244.0.0/16,fd00:10::/56"),
    signal: new AbortController().signal,
    logger,
    now: () => clock,
    listNodes: () => nodes.map((n) => asCached(Resources.nodes, n)),
    setNetworkCondition: async (n, c) => {
      conditions.push({ node: n.metadata?.name ?? "", condition: c });
    },
    recordEvent: (ref, event) => events.push({ ref, event }),
    onReconcile: () => reconciles++,
    ...over,
  };
  return {
    deps,
    conditions,
    events,
    advance: (ms: number) => {
      clock += ms;
    },
    reconciles: () => reconciles,
  };
}

const seed = (cloud: FakeCloud, r: Route, clusterName = "kubernetes") => {
  const name = `${clusterName}-${r.targetNode}-${r.destinationCIDR}`;
  cloud.routeMap.set(name, { clusterName, route: { ...r, name } });
};
const routeKeys = (cloud: FakeCloud) => [...cloud.routeMap.keys()].sort();
const statusOf = (h: ReturnType<typeof harness>) =>
  Object.fromEntries(h.conditions.map((c) => [c.node, `${c.condition.status}/${c.condition.reason}`]));

/** A promise with its resolver, to hold a fake cloud call open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe("reconcileNodeRoutes with the fake cloud", () => {
  test("creates routes for nodes with pod CIDRs (dual stack too) and marks them NetworkUnavailable=False", async () => {
    const cloud = new FakeCloud();
    const nodes = [
      node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("192.168.0.1"))),
      node("n2", podCIDRs("10.244.2.0/24", "fd00:10::200/120")),
      node("n3"),
    ];
    const h = harness(cloud, nodes);
    const result = await reconcileNodeRoutes(h.deps);
    expect(routeKeys(cloud)).toEqual([
      "kubernetes-n1-10.244.1.0/24",
      "kubernetes-n2-10.244.2.0/24",
      "kubernetes-n2-fd00:10::200/120",
    ]);
    const createArgs = cloud.calls.filter((c) => c.name === "create-route").map((c) => c.args[2]);
    expect(createArgs).toEqual(["uid-n1", "uid-n2", "uid-n2"]);
    expect(cloud.routeMap.get("kubernetes-n1-10.244.1.0/24")?.route.targetNodeAddresses).toEqual([
      internalIP("192.168.0.1"),
    ]);
    expect(statusOf(h)).toEqual({ n1: "False/RouteCreated", n2: "False/RouteCreated" });
    expect(result.failedCreates).toEqual([]);
    expect(h.reconciles()).toBe(1);
    expect(cloud.callNames()[0]).toBe("list-routes");
  });

  test("deletes the route of a removed node and leaves routes outside the cluster CIDRs", async () => {
    const cloud = new FakeCloud();
    seed(cloud, { name: "", targetNode: "gone", destinationCIDR: "10.244.9.0/24" });
    seed(cloud, { name: "", targetNode: "vpn", destinationCIDR: "172.16.0.0/24" });
    seed(cloud, { name: "", targetNode: "n1", destinationCIDR: "10.244.1.0/24" });
    const h = harness(cloud, [node("n1", podCIDRs("10.244.1.0/24"))]);
    const result = await reconcileNodeRoutes(h.deps);
    expect(routeKeys(cloud)).toEqual(["kubernetes-n1-10.244.1.0/24", "kubernetes-vpn-172.16.0.0/24"]);
    expect(result.deleted.map((r) => r.targetNode)).toEqual(["gone"]);
    expect(cloud.callNames().filter((n) => n === "create-route")).toEqual([]);
    expect(statusOf(h)).toEqual({ n1: "False/RouteCreated" });
  });

  test("a failed creation records FailedToCreateRoute with the elapsed time and leaves the node unavailable", async () => {
    const cloud = new FakeCloud();
    const h = harness(cloud, [
      node("n1", uid("u-1"), podCIDRs("10.244.1.0/24")),
      node("n2", podCIDRs("10.244.2.0/24")),
    ]);
    cloud.override("createRoute", async (_ctx: CallContext, _cluster: string, _hint: string, r: Route) => {
      if (r.targetNode !== "n1") return;
      h.advance(1500);
      throw new Error("quota exceeded");
    });
    const result = await reconcileNodeRoutes(h.deps);
    expect(result.failedCreates.map((c) => c.nodeName)).toEqual(["n1"]);
    expect(h.events).toEqual([
      {
        ref: { apiVersion: "v1", kind: "Node", name: "n1", uid: "u-1" },
        event: {
          type: "Warning",
          reason: "FailedToCreateRoute",
          message: "Could not create route u-1 10.244.1.0/24 for node n1 after 1.5s: quota exceeded",
        },
      },
    ]);
    expect(statusOf(h)).toEqual({ n1: "True/NoRouteCreated", n2: "False/RouteCreated" });
  });

  test("a route the provider cannot make yet is said at info level, with no Warning, and the node waits", async () => {
    const cloud = new FakeCloud();
    const { logger: captured, logs } = captureLogger();
    const h = harness(cloud, [node("n1", uid("u-1"), podCIDRs("10.244.1.0/24"))], { logger: captured });
    cloud.override("createRoute", async () => {
      throw wrapError("acme/routes.createRoute", new RetryError("the node has no private IP yet", 1000));
    });
    const result = await reconcileNodeRoutes(h.deps);
    expect(result.failedCreates.map((c) => c.nodeName)).toEqual(["n1"]);
    expect(h.events).toEqual([]);
    expect(logs.filter((l) => l.type === "error")).toEqual([]);
    expect(logs.map((l) => l.message)).toContain(
      "Waiting to create route for node n1 10.244.1.0/24: the node has no private IP yet",
    );
    expect(statusOf(h)).toEqual({ n1: "True/NoRouteCreated" });
  });

  test("marks a node that has routes but no pod CIDRs unavailable, and deletes those routes", async () => {
    const cloud = new FakeCloud();
    seed(cloud, { name: "", targetNode: "n1", destinationCIDR: "10.244.1.0/24" });
    const h = harness(cloud, [node("n1")]);
    await reconcileNodeRoutes(h.deps);
    expect(routeKeys(cloud)).toEqual([]);
    expect(statusOf(h)).toEqual({ n1: "True/NoRouteCreated" });
  });

  test("writes no condition a node already has, and keeps going when a write fails", async () => {
    const cloud = new FakeCloud();
    seed(cloud, { name: "", targetNode: "ok", destinationCIDR: "10.244.1.0/24" });
    const nodes = [
      node(
        "ok",
        podCIDRs("10.244.1.0/24"),
        condition({ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" }),
      ),
      node("broken", podCIDRs("10.244.2.0/24")),
      node("fine", podCIDRs("10.244.3.0/24")),
    ];
    const h = harness(cloud, nodes);
    const inner = h.deps.setNetworkCondition;
    const deps = {
      ...h.deps,
      setNetworkCondition: async (n: Node, c: NodeCondition) => {
        if (n.metadata?.name === "broken") throw new Error("409 Conflict");
        await inner(n, c);
      },
    };
    const result = await reconcileNodeRoutes(deps);
    expect(statusOf(h)).toEqual({ fine: "False/RouteCreated" });
    expect(result.conditionsWritten.map((c) => c.node)).toEqual(["fine"]);
  });

  test.each([
    ["routes", "listRoutes", "error listing routes: cloud down"],
    ["nodes", "listNodes", "error listing nodes: cache gone"],
  ] as const)("fails the pass when listing %s fails", async (_what, which, message) => {
    const cloud = new FakeCloud();
    const h = harness(cloud, []);
    if (which === "listRoutes") cloud.err = new Error("cloud down");
    const deps =
      which === "listNodes"
        ? {
            ...h.deps,
            listNodes: () => {
              throw new Error("cache gone");
            },
          }
        : h.deps;
    await expect(reconcileNodeRoutes(deps)).rejects.toThrow(message);
  });

  test("with an opted-in first route, re-creates an updated route only after its deletion finished", async () => {
    const cloud = new FakeCloud();
    seed(cloud, {
      name: "",
      targetNode: "n1",
      destinationCIDR: "10.244.1.0/24",
      enableNodeAddresses: true,
      targetNodeAddresses: [internalIP("10.0.0.1")],
    });
    const h = harness(cloud, [node("n1", podCIDRs("10.244.1.0/24"), addresses(internalIP("10.0.0.2")))]);
    const order: string[] = [];
    const release = gate();
    // Overrides replace the fake's own bookkeeping, so they keep routeMap themselves.
    cloud.override("deleteRoute", async (_ctx: CallContext, cluster: string, r: Route) => {
      order.push("delete-start");
      await release.opened;
      order.push("delete-end");
      cloud.routeMap.delete(`${cluster}-${r.targetNode}-${r.destinationCIDR}`);
    });
    cloud.override("createRoute", async (_ctx: CallContext, cluster: string, hint: string, r: Route) => {
      order.push("create");
      cloud.routeMap.set(`${cluster}-${r.targetNode}-${r.destinationCIDR}`, {
        clusterName: cluster,
        route: { ...r, name: hint },
      });
    });
    const pass = reconcileNodeRoutes(h.deps);
    await until(() => order.includes("delete-start"), "the deletion to start");
    expect(order).toEqual(["delete-start"]);
    release.open();
    await pass;
    expect(order).toEqual(["delete-start", "delete-end", "create"]);
    expect(cloud.routeMap.get("kubernetes-n1-10.244.1.0/24")?.route.targetNodeAddresses).toEqual([
      internalIP("10.0.0.2"),
    ]);
  });

  test("without opted-in routes, creates while deletions are still running", async () => {
    const cloud = new FakeCloud();
    seed(cloud, { name: "", targetNode: "gone", destinationCIDR: "10.244.9.0/24" });
    const h = harness(cloud, [node("n1", podCIDRs("10.244.1.0/24"))]);
    const release = gate();
    let created = false;
    cloud.override("deleteRoute", async () => {
      await release.opened;
    });
    cloud.override("createRoute", async () => {
      created = true;
    });
    const pass = reconcileNodeRoutes(h.deps);
    await until(() => created, "the creation to run while the deletion is held");
    release.open();
    await pass;
  });

  test("keeps at most the configured number of cloud operations in flight", async () => {
    const cloud = new FakeCloud();
    for (let i = 0; i < 6; i++)
      seed(cloud, { name: "", targetNode: `gone${i}`, destinationCIDR: `10.244.${100 + i}.0/24` });
    const nodes = Array.from({ length: 6 }, (_, i) => node(`n${i}`, podCIDRs(`10.244.${i}.0/24`)));
    const h = harness(cloud, nodes, { maxConcurrentOperations: 3 });
    let inFlight = 0;
    let peak = 0;
    let done = 0;
    const slow = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      done++;
    };
    cloud.override("deleteRoute", slow);
    cloud.override("createRoute", slow);
    await reconcileNodeRoutes(h.deps);
    expect(done).toBe(12);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(0);
  });

  test("the fake's permanent error after a duplicate create surfaces as a failed creation", async () => {
    const cloud = new FakeCloud();
    // Dual listing of the same pod CIDR makes the controller create it twice, as upstream would.
    const h = harness(cloud, [node("n1", podCIDRs("10.244.1.0/24", "10.244.1.0/24"))]);
    const result = await reconcileNodeRoutes(h.deps);
    expect(result.created.length).toBe(1);
    expect(result.failedCreates.length).toBe(1);
    expect(h.events[0]?.event.message).toContain('route "kubernetes-n1-10.244.1.0/24" already exists');
  });
});
