/**
 * The cloud-node-lifecycle runner end to end: the real start function over the API emulator's store, a real informer,
 * the fake cloud and real event recorders. Passes after the first are started by advancing the manual clock.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { FakeClock, waitFor } from "../../kube/testdata/fake-clock.ts";
import { Taints } from "../../kube/well-known.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { node, providerID, ready, taint } from "../node/node-fixtures.ts";
import {
  type ControllerHarness,
  controllerHarness,
  defaultControllerOptions,
} from "../runtime/testing/controller-context.ts";
import { startCloudNodeLifecycleController } from "./controller.ts";

type Harness = ControllerHarness<FakeClock>;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A V2 cloud answering per node name: gone, shut down, or running. */
function cloudWith(state: Record<string, "gone" | "shutdown" | "running">, bulk = false): FakeCloud {
  const cloud = new FakeCloud();
  cloud.enableInstancesV2 = true;
  cloud.enableBulk = bulk;
  const of = (n: Node) => state[n.metadata?.name ?? ""] ?? "running";
  cloud.override("instanceExists", async (_ctx, n) => of(n) !== "gone");
  cloud.override("instanceShutdown", async (_ctx, n) => of(n) === "shutdown");
  return cloud;
}

const probed = (cloud: FakeCloud, name: string) =>
  cloud.calls.some((c) => (c.args[1] as Node | undefined)?.metadata?.name === name);
const shutdownTainted = (n: Node | undefined) =>
  (n?.spec?.taints ?? []).some((t) => t.key === Taints.shutdown && t.effect === "NoSchedule");

function harness(cloud: FakeCloud, nodes: Node[]): Harness {
  h = controllerHarness({ name: "cloud-node-lifecycle-controller", provider: cloud, clock: new FakeClock(), nodes });
  return h;
}

async function run(cloud: FakeCloud, nodes: Node[]): Promise<Harness> {
  h = harness(cloud, nodes);
  expect((await h.start(startCloudNodeLifecycleController)).started).toBe(true);
  return h;
}

describe("cloud-node-lifecycle controller", () => {
  test("declines with upstream's reason when the provider has no instances", async () => {
    const cloud = new FakeCloud();
    cloud.disableInstances = true;
    h = harness(cloud, []);
    expect(await h.start(startCloudNodeLifecycleController)).toEqual({
      started: false,
      reason: "cloud provider does not support instances",
    });
  });

  test("deletes a NotReady node whose instance is gone, with DeletingNode; never probes a Ready one", async () => {
    const cloud = cloudWith({ lost: "gone", alive: "gone" });
    const t = await run(cloud, [node("lost", ready(false)), node("alive", ready(true))]);
    await waitFor(() => t.node("lost") === undefined, { message: "the deletion" });
    await t.flushEvents();

    const [event] = t.writtenEvents("DeletingNode");
    expect(event).toMatchObject({
      type: "Normal",
      message: "Deleting node lost because it does not exist in the cloud provider",
      source: { component: "cloud-node-lifecycle-controller" },
      involvedObject: { apiVersion: "v1", kind: "Node", name: "lost", uid: "uid-lost" },
    });
    expect(t.node("alive")).toBeDefined();
    expect(probed(cloud, "alive")).toBe(false);
  });

  test("a failed delete records DeletingNodeFailed", async () => {
    const cloud = cloudWith({ lost: "gone" });
    h = harness(cloud, [node("lost", ready("Unknown"))]);
    h.client.fail({ method: "delete", resource: "nodes" }, new Error("etcd is sad"), { times: 1 });
    const t = h;
    await t.start(startCloudNodeLifecycleController);
    await waitFor(() => t.writtenEvents("DeletingNodeFailed").length === 1, { message: "the failure event" });
    expect(t.writtenEvents("DeletingNodeFailed")[0]).toMatchObject({
      type: "Warning",
      message: "Failed deleting node lost: etcd is sad",
    });
  });

  test("taints a shut-down node, and removes the taint once it is Ready again", async () => {
    const state: Record<string, "shutdown" | "running"> = { n1: "shutdown" };
    const cloud = cloudWith(state);
    const t = await run(cloud, [node("n1", providerID("fake://n1"), ready(false))]);
    await waitFor(() => shutdownTainted(t.node("n1")), { message: "the shutdown taint" });
    const [added] = t.client.writes({ name: "n1" });
    expect(added).toMatchObject({ method: "patch", patchType: "merge" });
    expect(added?.body).toMatchObject({ metadata: { resourceVersion: expect.any(String) } });

    state.n1 = "running";
    await t.client.patch(
      Resources.nodes,
      "n1",
      "merge",
      { status: { conditions: [{ type: "Ready", status: "True" }] } },
      {
        subresource: "status",
      },
    );
    await waitFor(() => t.cached("n1")?.status?.conditions?.[0]?.status === "True", { message: "the Ready cache" });
    cloud.clearCalls();
    await t.clock.advance(defaultControllerOptions.nodeMonitorPeriodMs);
    await waitFor(() => !shutdownTainted(t.node("n1")), { message: "the taint removal" });
    expect(t.node("n1")?.spec?.taints).toEqual([]);
    expect(probed(cloud, "n1")).toBe(false);
  });

  test("a taint patch refused as stale is retried on a fresh copy", async () => {
    const cloud = cloudWith({ n1: "shutdown" });
    h = harness(cloud, [node("n1", ready(false))]);
    const conflict = new KubeApiError("the object has been modified", { status: 409, reason: "Conflict" });
    h.client.fail({ method: "patch", resource: "nodes" }, conflict, { times: 1 });
    const t = h;
    await t.start(startCloudNodeLifecycleController);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return shutdownTainted(t.node("n1"));
      },
      { message: "the shutdown taint after a conflict" },
    );
    expect(t.client.requestsMatching({ method: "get", name: "n1" })).toHaveLength(2);
    expect(t.client.requestsMatching({ method: "patch", name: "n1" })).toHaveLength(2);
  });

  test("an already tainted shut-down node and a Ready untainted node cost no writes", async () => {
    const cloud = cloudWith({ off: "shutdown" }, true);
    cloud.existsByProviderID = true;
    cloud.nodeShutdown = true;
    const off = node("off", ready(false), taint(Taints.shutdown));
    const t = await run(cloud, [off, node("on", ready(true))]);
    await waitFor(() => cloud.callNames().includes("instance-metadata-bulk"), { message: "the first pass" });
    await t.clock.advance(defaultControllerOptions.nodeMonitorPeriodMs);
    await waitFor(() => cloud.callNames().filter((c) => c === "instance-metadata-bulk").length === 2, {
      message: "the second pass",
    });
    expect(t.client.writes({ resource: "nodes" })).toHaveLength(0);
    expect(cloud.callNames().every((c) => c === "instance-metadata-bulk")).toBe(true);
  });

  test("a failing bulk call deletes nothing and is logged once", async () => {
    const cloud = cloudWith({ a: "gone", b: "gone" }, true);
    cloud.override("instanceMetadataBulk", async () => {
      throw new Error("listing failed");
    });
    const t = await run(cloud, [node("a", ready(false)), node("b", ready(false))]);
    await waitFor(() => t.logs.some((l) => l.message.includes("listing failed")), { message: "the log line" });
    expect(t.logs.filter((l) => l.message.includes("listing failed"))).toHaveLength(1);
    expect(t.client.writes({ resource: "nodes" })).toHaveLength(0);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk"]);
  });

  test("stops when the signal aborts; running_managed_controllers goes 1 then 0", async () => {
    const t = await run(cloudWith({}), [node("n1", ready(true))]);
    const running = () => t.metric("running_managed_controllers", { name: "cloud-node-lifecycle" });
    await waitFor(async () => (await running()) === 1, { message: "gauge 1" });
    await t.stop();
    expect(await running()).toBe(0);
    h = undefined;
  });
});
