import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import type { CallContext } from "../../providers/cloud.ts";
import { ImplementedElsewhereError } from "../../providers/errors.ts";
import { nodeSyncService, syncNodes } from "./sync.ts";
import {
  autoscaler,
  excludeLabel,
  label,
  names,
  node,
  providerID,
  ready,
  service,
  taint,
  type,
} from "./test-fixtures.ts";
import { harnessFor, runSync, type ServiceHarness } from "./test-harness.ts";

const KEY = "default/web";

/** A harness whose Service went through one successful sync on `nodes`, with calls and events cleared. */
async function synced(nodes: Node[], services: Service[] = [service("web")]) {
  const { cloud, h } = harnessFor(services, nodes);
  for (const s of services) await runSync(h, `default/${s.metadata?.name}`);
  h.reset();
  cloud.ensureCalls.length = 0;
  return { cloud, h };
}

const setNodes = (h: ServiceHarness, nodes: Node[]) => {
  h.state.nodes = nodes;
};

describe("syncNodes", () => {
  test("a new node updates the load balancer's hosts and says so", async () => {
    const { cloud, h } = await synced([node("a")]);
    setNodes(h, [node("a"), node("b")]);
    expect(await syncNodes(h.deps, 1)).toEqual(new Set());
    expect(cloud.callNames()).toEqual(["update"]);
    expect(names(cloud.updateCalls[0]?.hosts ?? [])).toEqual(["a", "b"]);
    expect(h.state.events.map((e) => `${e.type} ${e.reason}: ${e.message}`)).toEqual([
      "Normal UpdatedLoadBalancer: Updated load balancer with new hosts",
    ]);
    expect(h.state.metrics).toEqual({
      loadBalancerSync: 1,
      nodeSyncError: 0,
      updateHostLatency: 1,
      nodeSyncLatency: 1,
    });
  });

  test.each([
    ["nothing changed", [node("a"), node("b")]],
    ["only readiness changed", [node("a", ready(false)), node("b")]],
    ["the same nodes came back in another order", [node("b"), node("a")]],
  ])("does not call the cloud when %s", async (_name, now) => {
    const { cloud, h } = await synced([node("a"), node("b")]);
    setNodes(h, now);
    await syncNodes(h.deps, 1);
    expect(cloud.callNames()).toEqual([]);
    expect(h.state.metrics.loadBalancerSync).toBe(0);
  });

  test("says it updated the load balancers once a change, at debug level when a pass found nothing to change", async () => {
    const { h } = await synced([node("a")]);
    const { logger, logs } = captureLogger();
    const deps = { ...h.deps, logger };
    setNodes(h, [node("a"), node("b")]);
    await syncNodes(deps, 1);
    await syncNodes(deps, 1); // a second node event right behind the first
    const said = logs.filter((l) => l.message.startsWith("Successfully updated 1 out of 1 load balancers"));
    expect(said.map((l) => l.type)).toEqual(["info", "debug"]);
  });

  test.each([
    ["a providerID changed", [node("a", providerID("fake://new")), node("b")], ["a", "b"]],
    ["a node was excluded", [node("a"), node("b", label(excludeLabel, "true"))], ["a"]],
    ["a node got the autoscaler taint", [node("a", taint(autoscaler)), node("b")], ["b"]],
  ])("updates the hosts when %s", async (_name, now, hosts) => {
    const { cloud, h } = await synced([node("a"), node("b")]);
    setNodes(h, now);
    await syncNodes(h.deps, 1);
    expect(names(cloud.updateCalls[0]?.hosts ?? [])).toEqual(hosts);
  });

  test("losing every node warns UnAvailableLoadBalancer", async () => {
    const { cloud, h } = await synced([node("a")]);
    setNodes(h, [node("a", label(excludeLabel, "true"))]);
    await syncNodes(h.deps, 1);
    expect(cloud.updateCalls[0]?.hosts).toEqual([]);
    expect(h.reasons()).toEqual(["UnAvailableLoadBalancer"]);
  });

  test("a failed update of an existing load balancer is reported and returned for retry, once", async () => {
    const { cloud, h } = await synced([node("b")]);
    setNodes(h, [node("b"), node("a")]);
    cloud.exists = true;
    cloud.override("updateLoadBalancer", async () => {
      throw new Error("backend busy");
    });
    expect(await syncNodes(h.deps, 1)).toEqual(new Set([KEY]));
    expect(h.state.events).toEqual([
      {
        key: KEY,
        uid: "uid-web",
        type: "Warning",
        reason: "UpdateLoadBalancerFailed",
        message:
          "Error updating load balancer with new hosts [a b] [node names limited, total number of nodes: 2], error: backend busy",
      },
    ]);
    expect(h.state.metrics.nodeSyncError).toBe(1);
    // The new set was recorded before the call: the next node sync leaves the retry to the service queue.
    h.reset();
    expect(await syncNodes(h.deps, 1)).toEqual(new Set());
    expect(cloud.callNames()).toEqual([]);
  });

  test("a failed update of a load balancer that is gone counts as success", async () => {
    const { cloud, h } = await synced([node("a")]);
    setNodes(h, [node("a"), node("b")]);
    cloud.exists = false;
    cloud.override("updateLoadBalancer", async () => {
      throw new Error("no such load balancer");
    });
    expect(await syncNodes(h.deps, 1)).toEqual(new Set());
    expect(h.state.events).toEqual([]);
    expect(h.state.metrics.nodeSyncError).toBe(0);
  });

  test("a failed existence lookup after a failed update counts as 'exists'", async () => {
    const { cloud, h } = await synced([node("a")]);
    setNodes(h, [node("a"), node("b")]);
    cloud.err = new Error("cloud down"); // fails the update and the lookup alike
    expect(await syncNodes(h.deps, 1)).toEqual(new Set([KEY]));
    expect(h.reasons()).toEqual(["UpdateLoadBalancerFailed"]);
    expect(cloud.updateCalls).toHaveLength(1);
  });

  test("ImplementedElsewhere from the update is success without event", async () => {
    const { cloud, h } = await synced([node("a")]);
    setNodes(h, [node("b")]);
    cloud.override("updateLoadBalancer", async () => {
      throw new ImplementedElsewhereError();
    });
    expect(await syncNodes(h.deps, 1)).toEqual(new Set());
    expect(h.state.events).toEqual([]);
  });

  test("a node lister failure asks for a retry of every load-balanced Service", async () => {
    const { h } = await synced([node("a")]);
    const deps = {
      ...h.deps,
      listNodes: () => {
        throw new Error("not synced");
      },
    };
    expect(await syncNodes(deps, 1)).toEqual(new Set([KEY]));
    expect(h.state.metrics.nodeSyncError).toBe(1);
  });

  test("skips cached Services that no longer want a load balancer", async () => {
    const { cloud, h } = await synced([node("a")]);
    expect(await nodeSyncService(h.deps, service("web", type("ClusterIP")))).toBe(false);
    expect(await nodeSyncService(h.deps, undefined)).toBe(false);
    expect(cloud.callNames()).toEqual([]);
  });

  test("runs at most `workers` host updates at once", async () => {
    const services = Array.from({ length: 6 }, (_, i) => service(`s${i}`));
    const { cloud, h } = await synced([node("a")], services);
    setNodes(h, [node("a"), node("b")]);
    let inFlight = 0;
    let peak = 0;
    cloud.override("updateLoadBalancer", async (_ctx: CallContext) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
    });
    expect(await syncNodes(h.deps, 2)).toEqual(new Set());
    expect(cloud.callNames().filter((c) => c === "update")).toHaveLength(6);
    expect(peak).toBeLessThanOrEqual(2);
  });
});
