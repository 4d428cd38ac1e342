import { afterEach, describe, expect, test } from "bun:test";
import { KubeApiError, Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { type ControllerOptions, ControllerStartError } from "../context.ts";
import { type ControllerHarness, controllerHarness } from "../runtime/testing/controller-context.ts";
import { NodeIpamDeclines, startNodeIpamController } from "./controller.ts";

let harness: ControllerHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const node = (name: string, ...podCIDRs: string[]): Node => ({
  metadata: { name },
  spec: podCIDRs[0] === undefined ? {} : { podCIDR: podCIDRs[0], podCIDRs },
});

function setup(nodes: Node[], options: Partial<ControllerOptions> = {}) {
  const h = controllerHarness({
    name: "node-ipam-controller",
    provider: new FakeCloud(),
    nodes,
    options: { allocateNodeCIDRs: true, clusterCIDR: "10.244.0.0/22,fd00:10:244::/64", ...options },
  });
  harness = h;
  return h;
}

const podCIDRs = (h: ControllerHarness, name: string) => h.node(name)?.spec?.podCIDRs;
const allHave =
  (h: ControllerHarness, ...names: string[]) =>
  () =>
    names.every((n) => podCIDRs(h, n) !== undefined);

describe("node IPAM controller", () => {
  test("declines with --allocate-node-cidrs=false", async () => {
    const h = setup([], { allocateNodeCIDRs: false });
    expect(await h.start(startNodeIpamController)).toEqual({
      started: false,
      reason: NodeIpamDeclines.notAllocating,
    });
  });

  test("the cloud allocator on a provider without cidrAllocator stops the manager naming the flag", async () => {
    const h = setup([], { cidrAllocatorType: "CloudAllocator" });
    await expect(h.start(startNodeIpamController)).rejects.toThrow(
      "--cidr-allocator-type=CloudAllocator: the fake provider does not assign pod CIDRs (it has no cidrAllocator)",
    );
  });

  test("the cloud allocator writes the cloud's ranges once, records CIDRNotAvailable for none, and asks nothing about Nodes that have pod CIDRs or no provider ID", async () => {
    const cloud = new FakeCloud();
    cloud.podCIDRsByProviderID = { "fake://a": ["10.1.0.0/24", "fd00:1::/64"], "fake://b": [] };
    const withID = (n: Node, providerID: string): Node => ({ ...n, spec: { ...n.spec, providerID } });
    const h = controllerHarness({
      name: "node-ipam-controller",
      provider: cloud,
      nodes: [
        withID(node("a"), "fake://a"),
        withID(node("b"), "fake://b"),
        node("pending"),
        withID(node("old", "10.9.0.0/24"), "fake://old"),
      ],
      options: { allocateNodeCIDRs: true, cidrAllocatorType: "CloudAllocator", clusterCIDR: "" },
    });
    harness = h;
    await h.start(startNodeIpamController);
    await waitFor(allHave(h, "a"), { message: "pod CIDRs on a" });
    expect(h.node("a")?.spec).toMatchObject({ podCIDR: "10.1.0.0/24", podCIDRs: ["10.1.0.0/24", "fd00:1::/64"] });
    await waitFor(
      async () => {
        await h.flushEvents();
        return h.writtenEvents("CIDRNotAvailable").length > 0;
      },
      { message: "CIDRNotAvailable for b" },
    );
    expect(h.writtenEvents("CIDRNotAvailable")[0]?.message).toBe("Node b status is now: CIDRNotAvailable");
    const asked = cloud.calls.filter((c) => c.name === "pod-cidrs").map((c) => (c.args[1] as Node).metadata?.name);
    expect(new Set(asked)).toEqual(new Set(["a", "b"]));
    expect([h.nodeWrites("old"), h.nodeWrites("pending"), h.nodeWrites("b")]).toEqual([0, 0, 0]);
  });

  test("a mask that does not fit the cluster CIDR stops the manager with upstream's message", async () => {
    const h = setup([], { clusterCIDR: "10.244.0.0/25" });
    await expect(h.start(startNodeIpamController)).rejects.toThrow(ControllerStartError);
  });

  test("gives Nodes without pod CIDRs distinct subnets, never one an existing Node holds, and leaves that Node alone", async () => {
    const h = setup([node("old", "10.244.0.0/24", "fd00:10:244::/64"), node("a"), node("b")], {
      clusterCIDR: "10.244.0.0/22,fd00:10:244::/62",
    });
    await h.start(startNodeIpamController);
    await waitFor(allHave(h, "a", "b"), { message: "pod CIDRs on a and b" });
    const given = [podCIDRs(h, "a"), podCIDRs(h, "b")].map((c) => c?.join(",")).sort();
    expect(given).toEqual(["10.244.1.0/24,fd00:10:244:1::/64", "10.244.2.0/24,fd00:10:244:2::/64"]);
    expect(h.node("a")?.spec?.podCIDR).toBe(podCIDRs(h, "a")?.[0] as string);
    expect(h.nodeWrites("old")).toBe(0);
    expect(await h.metric("node_ipam_controller_cidrset_usage_cidrs", { clusterCIDR: "10.244.0.0/22" })).toBe(0.75);
  });

  test("a full range records CIDRNotAvailable; a deleted Node's subnet then goes to the waiting one", async () => {
    const h = setup([node("a")], { clusterCIDR: "10.244.0.0/24" });
    await h.start(startNodeIpamController);
    await waitFor(allHave(h, "a"), { message: "pod CIDR on a" });
    await h.client.create(Resources.nodes, node("b"));
    await waitFor(
      async () => {
        await h.flushEvents();
        return h.writtenEvents("CIDRNotAvailable").length > 0;
      },
      { message: "CIDRNotAvailable" },
    );
    const event = h.writtenEvents("CIDRNotAvailable")[0];
    expect(event?.message).toBe("Node b status is now: CIDRNotAvailable");
    expect(event?.type).toBe("Normal");
    await h.client.delete(Resources.nodes, "a");
    await waitFor(allHave(h, "b"), { message: "a's subnet given to b" });
    expect(podCIDRs(h, "b")).toEqual(["10.244.0.0/24"]);
    expect(await h.metric("node_ipam_controller_cidrset_cidrs_releases_total", { clusterCIDR: "10.244.0.0/24" })).toBe(
      1,
    );
  });

  test.each([
    ["a refused write gives its subnet back", 500, "InternalError", 0.25],
    ["a timed-out write may have landed: its subnet stays taken until a restart", 500, "ServerTimeout", 0.5],
  ])("%s", async (_name, status, reason, usage) => {
    const h = setup([], { clusterCIDR: "10.244.0.0/22" });
    h.client.fail({ method: "patch", resource: "nodes" }, new KubeApiError("no", { status, reason }), { times: 3 });
    await h.start(startNodeIpamController);
    await h.client.create(Resources.nodes, node("a"));
    await waitFor(allHave(h, "a"), { message: "pod CIDR on a after the failed writes" });
    expect(podCIDRs(h, "a")).toEqual(["10.244.1.0/24"]);
    expect(await h.metric("node_ipam_controller_cidrset_usage_cidrs", { clusterCIDR: "10.244.0.0/22" })).toBe(usage);
    await h.flushEvents();
    expect(h.writtenEvents("CIDRAssignmentFailed").map((e) => e.message)).toEqual([
      "Node a status is now: CIDRAssignmentFailed",
    ]);
  });
});
