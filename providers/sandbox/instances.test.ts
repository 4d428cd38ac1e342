import { describe, expect, test } from "bun:test";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import { findInCauseChain, InstanceNotFoundError, isError, RetryError } from "../errors.ts";
import { rejection } from "../testing.ts";
import { createInstances } from "./instances.ts";
import { node, useTestCloud } from "./testing.ts";

const t = useTestCloud();

describe("instanceMetadata", () => {
  test("finds a node without provider ID by name and reports everything the node controller writes", async () => {
    const [m] = createMachines(t.cloud.state, 2);
    const meta = await createInstances(t.api).instanceMetadata(t.ctx, node("node-1"));
    expect(meta).toEqual({
      providerID: `sandbox://${m!.id}`,
      instanceType: "sb-small",
      nodeAddresses: [
        { type: "InternalIP", address: "10.0.0.1" },
        { type: "ExternalIP", address: "198.51.100.1" },
        { type: "Hostname", address: "node-1" },
      ],
      zone: "zone-a",
      region: "sandbox-1",
    });
  });

  test("prefers the provider ID over the name", async () => {
    const [, m2] = createMachines(t.cloud.state, 2);
    const meta = await createInstances(t.api).instanceMetadata(t.ctx, node("node-1", { providerID: m2!.providerID }));
    expect(meta).toMatchObject({ providerID: m2!.providerID, zone: "zone-b" });
  });

  test.each([
    ["no machine has the node's name", node("ghost")],
    ["the provider ID names no machine", node("node-1", { providerID: "sandbox://m-gone" })],
  ])("throws InstanceNotFoundError itself (not wrapped) when %s", async (_, n) => {
    createMachines(t.cloud.state, 1);
    const err = await rejection(() => createInstances(t.api).instanceMetadata(t.ctx, n));
    expect(isError(err, InstanceNotFoundError)).toBe(true);
    expect(err.message).toStartWith("instance not found: node");
  });

  test("a provider ID of another cloud is an error naming the operation and node", async () => {
    const err = await rejection(() =>
      createInstances(t.api).instanceMetadata(t.ctx, node("n1", { providerID: "hcloud://1" })),
    );
    expect(err.message).toBe(
      'sandbox/instances.instanceMetadata node "n1" (hcloud://1): provider ID "hcloud://1" does not start with "sandbox://"',
    );
    expect(isError(err, InstanceNotFoundError)).toBe(false);
  });

  test("a rate-limited lookup keeps the RetryError in the cause chain", async () => {
    t.cloud.faults.set({ failNext: [{ pathPrefix: "/v1/machines", status: 429, count: 1, retryAfterSeconds: 2 }] });
    const err = await rejection(() => createInstances(t.api).instanceMetadata(t.ctx, node("node-1")));
    expect(err.message).toStartWith('sandbox/instances.instanceMetadata node "node-1": sandbox/api.listMachines:');
    expect(findInCauseChain(err, RetryError)?.retryAfterMs).toBe(2000);
  });
});

describe("instanceExists and instanceShutdown", () => {
  test("a running machine exists and is not shut down", async () => {
    const [m] = createMachines(t.cloud.state, 1);
    const instances = createInstances(t.api);
    for (const n of [node("node-1"), node("node-1", { providerID: m!.providerID })]) {
      expect(await instances.instanceExists(t.ctx, n)).toBe(true);
      expect(await instances.instanceShutdown(t.ctx, n)).toBe(false);
    }
  });

  test("a stopped machine still exists, and is shut down", async () => {
    const [m] = createMachines(t.cloud.state, 1);
    t.cloud.state.updateMachine(m!.id, { state: "stopped" });
    const instances = createInstances(t.api);
    const n = node("node-1", { providerID: m!.providerID });
    expect(await instances.instanceExists(t.ctx, n)).toBe(true);
    expect(await instances.instanceShutdown(t.ctx, n)).toBe(true);
  });

  test("a deleted machine does not exist, even when a new machine took its name", async () => {
    const [m] = createMachines(t.cloud.state, 1);
    t.cloud.state.deleteMachine(m!.id);
    t.cloud.state.createMachine({ name: "node-1" });
    const instances = createInstances(t.api);
    const n = node("node-1", { providerID: m!.providerID });
    expect(await instances.instanceExists(t.ctx, n)).toBe(false);
    expect(await instances.instanceShutdown(t.ctx, n)).toBe(false);
  });

  test("cloud failures are errors, never a 'false' that would delete the node", async () => {
    createMachines(t.cloud.state, 1);
    t.cloud.faults.set({ errorRate: 1 });
    const err = await rejection(() => createInstances(t.api).instanceExists(t.ctx, node("node-1")));
    expect(err.message).toBe(
      'sandbox/instances.instanceExists node "node-1": sandbox/api.listMachines: 500 InternalError: injected by errorRate',
    );
  });
});

describe("instanceMetadataBulk", () => {
  test("answers for every node with one listing call per page", async () => {
    const machines = createMachines(t.cloud.state, 7);
    t.cloud.state.updateMachine(machines[2]!.id, { state: "stopped" });
    const nodes = [
      node("node-1"),
      node("node-2", { providerID: machines[1]!.providerID }),
      node("node-3"),
      node("ghost"),
      node("node-4", { providerID: "sandbox://m-gone" }),
    ];
    t.cloud.calls.reset();
    const result = await createInstances(t.api, { perPage: 3 }).instanceMetadataBulk(t.ctx, nodes);
    const calls = (await (
      await fetch(`${t.cloud.url}/v1/calls`, { headers: { authorization: `Bearer ${t.cloud.token}` } })
    ).json()) as { calls: { total: number; byRoute: Record<string, { calls: number }> } };
    expect(calls.calls.total).toBe(3); // ceil(7 / 3)
    expect(calls.calls.byRoute["GET /v1/machines"]?.calls).toBe(3);
    expect(result.get("node-1")).toMatchObject({ metadata: { providerID: machines[0]!.providerID }, shutdown: false });
    expect(result.get("node-2")?.metadata.zone).toBe("zone-b");
    expect(result.get("node-3")).toMatchObject({ shutdown: true, metadata: { instanceType: "sb-large" } });
    expect(result.get("ghost")).toBeNull();
    expect(result.get("node-4")).toBeNull();
    expect(result.size).toBe(5);
  });

  test("leaves out nodes with a foreign provider ID, so the per-node path reports them", async () => {
    createMachines(t.cloud.state, 1);
    const result = await createInstances(t.api).instanceMetadataBulk(t.ctx, [
      node("node-1", { providerID: "aws:///i-1" }),
    ]);
    expect(result.has("node-1")).toBe(false);
  });

  test("a failed page fails the whole call with the operation prefix", async () => {
    createMachines(t.cloud.state, 4);
    t.cloud.faults.set({ failNext: [{ method: "GET", pathPrefix: "/v1/machines", status: 503, count: 1 }] });
    const err = await rejection(() => createInstances(t.api, { perPage: 2 }).instanceMetadataBulk(t.ctx, [node("a")]));
    expect(err.message).toStartWith("sandbox/instances.instanceMetadataBulk (1 nodes): sandbox/api.listMachines: 503");
  });
});
