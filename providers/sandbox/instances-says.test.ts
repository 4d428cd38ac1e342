/**
 * What the simulated cloud can be made to say about a machine (docs/sandbox.md, "Saying what a provider may say"),
 * as the provider passes it on: `null` metadata while pending, no provider ID, additional labels.
 */
import { describe, expect, test } from "bun:test";
import type { MachineSpec } from "../../sandbox/cloud/types.ts";
import { createInstances } from "./instances.ts";
import { node, useTestCloud } from "./testing.ts";

const t = useTestCloud();

const labels = { "example.com/rack": "r1", "kubernetes.io/hostname": "other", "node.k8s.io/x": "y" };

describe("the sandbox provider passes on what the cloud says", () => {
  test.each<[string, Omit<MachineSpec, "name">, (id: string) => unknown]>([
    ["pending metadata is null, not an error", { metadataPending: true }, () => null],
    [
      "a hidden provider ID is an empty one",
      { providerIDHidden: true },
      () => expect.objectContaining({ providerID: "", zone: "zone-a" }),
    ],
    [
      "labels, reserved ones too, are additional labels (the framework drops what it must)",
      { labels },
      (id) => expect.objectContaining({ providerID: `sandbox://${id}`, additionalLabels: labels }),
    ],
    [
      "a machine without labels has no additional labels",
      {},
      () => expect.not.objectContaining({ additionalLabels: expect.anything() }),
    ],
  ])("%s", async (_name, spec, expected) => {
    const m = t.cloud.state.createMachine({ name: "node-1", ...spec });
    expect(await createInstances(t.api).instanceMetadata(t.ctx, node("node-1"))).toEqual(expected(m.id) as never);
  });

  test("the bulk lookup leaves a pending machine out, so the per-node lookup answers its null", async () => {
    const ready = t.cloud.state.createMachine({ name: "node-1", labels: { "example.com/rack": "r1" } });
    t.cloud.state.createMachine({ name: "node-2", metadataPending: true });
    const bulk = await createInstances(t.api).instanceMetadataBulk(t.ctx, [node("node-1"), node("node-2")]);
    expect([...bulk.keys()]).toEqual(["node-1"]);
    expect(bulk.get("node-1")?.metadata).toMatchObject({
      providerID: ready.providerID,
      additionalLabels: { "example.com/rack": "r1" },
    });
  });

  test("a pending machine still exists and reports its power state", async () => {
    t.cloud.state.createMachine({ name: "node-1", metadataPending: true, state: "stopped" });
    const instances = createInstances(t.api);
    expect(await instances.instanceExists(t.ctx, node("node-1"))).toBe(true);
    expect(await instances.instanceShutdown(t.ctx, node("node-1"))).toBe(true);
  });
});
