/**
 * The cloud-node runner end to end: the real start function over the API emulator's store, a real informer, the
 * fake cloud and real event recorders. Waits are on conditions; the controller's own clock is driven by hand.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { FakeClock, waitFor } from "../../kube/testdata/fake-clock.ts";
import { kubeletNode } from "../../kube/testdata/kubelet-node.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import type { InstanceMetadata } from "../../providers/cloud.ts";
import { InstanceNotFoundError } from "../../providers/errors.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import type { ControllerOptions } from "../context.ts";
import { type ControllerHarness, controllerHarness } from "../runtime/testing/controller-context.ts";
import { startCloudNodeController } from "./controller.ts";
import { addr, addresses, labels, node, providedNodeIP, providerID, uninitialized } from "./node-fixtures.ts";
import { addressRetryDelay } from "./node-sync.ts";
import { StuckReasons } from "./stuck.ts";

type Harness = ControllerHarness<FakeClock>;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const cloudAddresses = [addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "203.0.113.1")];

function metadataFor(n: Node): InstanceMetadata {
  return {
    providerID: `fake://${n.metadata?.name}`,
    instanceType: "m5.large",
    nodeAddresses: cloudAddresses,
    zone: "zone-a",
    region: "region-1",
  };
}

function v2Cloud(): FakeCloud {
  const cloud = new FakeCloud();
  cloud.enableInstancesV2 = true;
  return cloud;
}

/** The value at a dotted path. */
const at = (obj: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], obj);

const tainted = (n: Node | undefined) => (n?.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);
/** The node's merge patches of spec and metadata (initialisation), not of its status. */
const mainPatches = (t: Harness, name: string) =>
  t.client.requestsMatching({ method: "patch", name }).filter((r) => r.subresource === undefined);

function harness(cloud: FakeCloud, nodes: Node[], options: Partial<ControllerOptions> = {}): Harness {
  h = controllerHarness({ name: "cloud-node-controller", provider: cloud, clock: new FakeClock(), nodes, options });
  return h;
}

const processed = async (t: Harness) =>
  (await t.metric("workqueue_work_duration_seconds_count", { name: "Nodes" })) ?? 0;
const running = (t: Harness) => t.metric("running_managed_controllers", { name: "cloud-node" });

async function run(cloud: FakeCloud, nodes: Node[], options: Partial<ControllerOptions> = {}): Promise<Harness> {
  h = harness(cloud, nodes, options);
  const result = await h.start(startCloudNodeController);
  expect(result.started).toBe(true);
  return h;
}

describe("cloud-node controller", () => {
  test("declines with upstream's reason when the provider has no instances", async () => {
    const cloud = new FakeCloud();
    cloud.disableInstances = true;
    h = harness(cloud, []);
    expect(await h.start(startCloudNodeController)).toEqual({
      started: false,
      reason: "cloud provider does not support instances",
    });
  });

  test("initialises a tainted node: provider ID, addresses, labels, no taint, Synced, at most 3 writes", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    const t = await run(cloud, [node("n1", uninitialized)]);
    await waitFor(() => t.writtenEvents("Synced").length === 1, { message: "the Synced event" });

    const n1 = t.node("n1");
    expect(tainted(n1)).toBe(false);
    expect(n1?.spec?.providerID).toBe("fake://n1");
    expect(n1?.status?.addresses).toEqual(cloudAddresses);
    expect(n1?.metadata?.labels).toMatchObject({
      [Labels.instanceType]: "m5.large",
      [Labels.instanceTypeDeprecated]: "m5.large",
      [Labels.zone]: "zone-a",
      [Labels.region]: "region-1",
    });
    const [synced] = t.writtenEvents("Synced");
    expect(synced).toMatchObject({
      type: "Normal",
      message: "Node synced successfully",
      source: { component: "cloud-node-controller" },
      involvedObject: { apiVersion: "v1", kind: "Node", name: "n1" },
    });
    expect(t.nodeWrites("n1")).toBeLessThanOrEqual(3);
    // One merge patch of what initialisation changed (never a PUT of the trimmed cached node), one of
    // status.addresses.
    expect(t.client.writes({ name: "n1" }).map((w) => `${w.method} ${w.subresource ?? ""}`.trim())).toEqual([
      "patch",
      "patch status",
    ]);
  });

  test("initialising a kubelet-shaped node from the trimmed cache loses nothing the cache dropped", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    const { resourceVersion: _, ...metadata } = kubeletNode("n1").metadata ?? {};
    const kubelet = kubeletNode("n1");
    const cordoned = { ...kubelet, metadata, spec: { ...kubelet.spec, unschedulable: true } };
    const t = await run(cloud, [cordoned]);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return t.writtenEvents("Synced").length === 1;
      },
      { message: "the node to initialise" },
    );
    expect(t.cached("n1")?.status?.images).toBeUndefined();
    const stored = t.node("n1");
    expect(tainted(stored)).toBe(false);
    expect(stored?.spec?.providerID).toBe("fake://n1");
    for (const [what, value] of [
      ["spec.unschedulable", stored?.spec?.unschedulable],
      ["status.images", stored?.status?.images],
      ["status.capacity", stored?.status?.capacity],
      ["status.allocatable", stored?.status?.allocatable],
      ["status.nodeInfo", stored?.status?.nodeInfo],
      ["status.daemonEndpoints", stored?.status?.daemonEndpoints],
      ["status.volumesAttached", stored?.status?.volumesAttached],
      ["status.conditions", stored?.status?.conditions],
      ["metadata.annotations", stored?.metadata?.annotations],
    ] as const) {
      expect({ what, value }).toEqual({ what, value: at(cordoned, what) as never });
    }
    const [init] = mainPatches(t, "n1");
    expect(Object.keys(init?.body as object).sort()).toEqual(["metadata", "spec"]);
  });

  test("a provided node IP (an annotation read from the cache) the cloud does not report keeps the node tainted", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    const t = await run(cloud, [node("n1", uninitialized, providedNodeIP("10.9.9.9"))]);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return t.logs.some((l) => l.message.includes("10.9.9.9"));
      },
      { message: "the provided node IP to be refused" },
    );
    expect(tainted(t.node("n1"))).toBe(true);
    expect(mainPatches(t, "n1")).toEqual([]);
  });

  test("the taint-removal delay is observed from the written node's creation time", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    const t = await run(cloud, [node("n1", uninitialized)]);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return t.writtenEvents("Synced").length === 1;
      },
      { message: "the node to initialise" },
    );
    expect(await t.metric("node_controller_cloud_provider_taint_removal_delay_seconds_count")).toBe(1);
  });

  test("a conflicting update is retried against a fresh GET of the node", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    h = harness(cloud, [node("n1", uninitialized)]);
    const conflict = new KubeApiError("the object has been modified", { status: 409, reason: "Conflict" });
    h.client.fail({ method: "patch", resource: "nodes" }, conflict, { times: 1 });
    const t = h;
    await t.start(startCloudNodeController);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return t.writtenEvents("Synced").length === 1;
      },
      { message: "initialisation after the conflict" },
    );
    expect(mainPatches(t, "n1")).toHaveLength(2);
    expect(t.client.requestsMatching({ method: "get", name: "n1" })).toHaveLength(1);
    expect(tainted(t.node("n1"))).toBe(false);
  });

  test("a failed address patch after initialisation is retried with back-off until it lands", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async (_ctx, n) => metadataFor(n));
    h = harness(cloud, [node("n1", uninitialized)]);
    const unavailable = new KubeApiError("etcdserver: request timed out", {
      status: 503,
      reason: "ServiceUnavailable",
    });
    h.client.fail({ method: "patch", resource: "nodes", subresource: "status" }, unavailable, { times: 3 });
    const t = h;
    await t.start(startCloudNodeController);
    await waitFor(
      async () => {
        await t.clock.advance(100);
        return (t.node("n1")?.status?.addresses ?? []).length > 0;
      },
      { message: "the addresses to land" },
    );
    expect(t.node("n1")?.status?.addresses).toEqual(cloudAddresses);
    expect(tainted(t.node("n1"))).toBe(false);
    expect(t.client.requestsMatching({ method: "patch", name: "n1", subresource: "status" })).toHaveLength(4);
    // Initialisation itself was not repeated.
    expect(mainPatches(t, "n1")).toHaveLength(1);
    expect(t.writtenEvents("Synced")).toHaveLength(1);
  });

  test.each([
    [1, 500],
    [2, 1000],
    [5, 8000],
    [6, 10_000],
    [40, 10_000],
  ])("retries a failed address patch after failure %p in %p ms", (failures, ms) => {
    expect(addressRetryDelay(failures)).toBe(ms);
  });

  test("joins run in parallel up to the provider's declared burst at the default --concurrent-node-syncs", async () => {
    const cloud = v2Cloud();
    cloud.rateLimit = { qps: 1_000, burst: 4 };
    let inFlight = 0;
    let release: () => void = () => {};
    const allIn = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Answers only once all four lookups are in flight: one worker at a time would never get there.
    cloud.override("instanceMetadata", async (_ctx, n) => {
      if (++inFlight === 4) release();
      await allIn;
      return metadataFor(n);
    });
    const names = ["j1", "j2", "j3", "j4"];
    const t = await run(
      cloud,
      names.map((n) => node(n, uninitialized)),
    );
    await waitFor(() => t.writtenEvents("Synced").length === 4, { message: "four joins" });
    expect(names.every((n) => !tainted(t.node(n)))).toBe(true);
  });

  test("null metadata leaves the node tainted, with one Warning and no write", async () => {
    const cloud = v2Cloud();
    cloud.override("instanceMetadata", async () => null);
    const t = await run(cloud, [node("n1", uninitialized)]);
    await waitFor(() => t.writtenEvents(StuckReasons.metadataUnavailable).length > 0, { message: "the Warning" });
    await t.flushEvents();

    const warnings = t.writtenEvents().filter((e) => e.type === "Warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.count ?? 1).toBe(1);
    expect(tainted(t.node("n1"))).toBe(true);
    expect(t.nodeWrites("n1")).toBe(0);
  });

  test("a failing lookup is retried with back-off and its Warning is not repeated on every attempt", async () => {
    const cloud = v2Cloud();
    let attempts = 0;
    cloud.override("instanceMetadata", async (_ctx, n) => {
      attempts++;
      if (attempts <= 10) throw new InstanceNotFoundError(n.metadata?.name);
      return metadataFor(n);
    });
    const t = await run(cloud, [node("n1", uninitialized)]);
    await waitFor(
      async () => {
        await t.clock.advance(1_000);
        return t.writtenEvents("Synced").length === 1;
      },
      { message: "initialisation after ten failures" },
    );
    await t.flushEvents();

    expect(attempts).toBe(11);
    const warnings = t.writtenEvents(StuckReasons.instanceNotFound);
    expect(warnings).toHaveLength(1);
    // Attempts 1, 2, 4 and 8 warn; the recorder folds the repeats into one Event's count.
    expect(warnings[0]?.count).toBe(4);
    expect(tainted(t.node("n1"))).toBe(false);
  });

  test("a resync or refresh of an unchanged initialised cluster writes nothing, to the API or the cloud", async () => {
    const cloud = v2Cloud();
    cloud.enableBulk = true;
    cloud.existsByProviderID = true;
    cloud.addresses = cloudAddresses;
    const nodes = ["a", "b", "c"].map((n) =>
      node(n, providerID(`fake://${n}`), addresses(...cloudAddresses), labels({ [Labels.zone]: "zone-a" })),
    );
    const t = await run(cloud, nodes);
    const bulkCalls = () => cloud.callNames().filter((c) => c === "instance-metadata-bulk").length;
    await waitFor(async () => (await processed(t)) === 3 && bulkCalls() === 1, { message: "first pass" });

    t.ctx.informers.forResource(Resources.nodes).resync();
    await waitFor(async () => (await processed(t)) === 6, { message: "the resync" });
    await t.clock.advance(300_000);
    await waitFor(() => bulkCalls() === 2, { message: "the second refresh" });

    expect(t.client.writes({ resource: "nodes" })).toHaveLength(0);
    expect(cloud.callNames().every((c) => c === "instance-metadata-bulk")).toBe(true);
  });

  test("the address refresh patches only the nodes whose addresses changed", async () => {
    const cloud = v2Cloud();
    cloud.enableBulk = true;
    cloud.existsByProviderID = true;
    cloud.addresses = cloudAddresses;
    const same = node("same", providerID("fake://same"), addresses(...cloudAddresses));
    const moved = node("moved", providerID("fake://moved"), addresses(addr("InternalIP", "10.9.9.9")));
    const t = await run(cloud, [same, moved], { concurrentNodeStatusUpdates: 1 });
    await waitFor(() => t.nodeWrites("moved") === 1, { message: "the status patch" });

    expect(t.node("moved")?.status?.addresses).toEqual(cloudAddresses);
    const [patch] = t.client.writes({ name: "moved" });
    expect(patch).toMatchObject({ method: "patch", subresource: "status", patchType: "merge" });
    expect(t.nodeWrites("same")).toBe(0);
  });

  test("copies beta labels to their GA names on initialised nodes, and leaves consistent ones alone", async () => {
    const cloud = v2Cloud();
    const stale = node("stale", providerID("fake://stale"), labels({ [Labels.zoneDeprecated]: "z1" }));
    const fine = node(
      "fine",
      providerID("fake://fine"),
      labels({ [Labels.zoneDeprecated]: "z1", [Labels.zone]: "z1" }),
    );
    const t = await run(cloud, [stale, fine]);
    await waitFor(() => t.node("stale")?.metadata?.labels?.[Labels.zone] === "z1", { message: "the GA label" });
    await waitFor(async () => (await processed(t)) >= 3, { message: "both nodes synced" });

    expect(t.nodeWrites("stale")).toBe(1);
    expect(t.nodeWrites("fine")).toBe(0);
  });

  test("stops when the signal aborts; running_managed_controllers goes 1 then 0", async () => {
    const t = await run(v2Cloud(), [node("n1", providerID("fake://n1"))]);
    await waitFor(async () => (await running(t)) === 1, { message: "gauge 1" });
    await t.stop();
    expect(await running(t)).toBe(0);
    h = undefined;
  });
});
