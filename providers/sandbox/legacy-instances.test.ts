import { describe, expect, test } from "bun:test";
import { createMachines } from "../../sandbox/cloud/fixtures.ts";
import type { CloudProvider } from "../cloud.ts";
import { InstanceNotFoundError, isError, NotImplementedError } from "../errors.ts";
import { rejection } from "../testing.ts";
import { createLegacyInstances } from "./legacy-instances.ts";
import { sandboxProvider } from "./provider.ts";
import { useTestCloud } from "./testing.ts";

const t = useTestCloud();

describe("the legacy Instances and Zones", () => {
  test("answer by name and by provider ID alike", async () => {
    const [, m] = createMachines(t.cloud.state, 2);
    const { instances, zones } = createLegacyInstances(t.api);
    const addresses = m!.addresses;
    expect(await instances.nodeAddresses(t.ctx, "node-2")).toEqual(addresses);
    expect(await instances.nodeAddressesByProviderID(t.ctx, m!.providerID)).toEqual(addresses);
    expect(await instances.instanceID(t.ctx, "node-2")).toBe(m!.id);
    expect(await instances.instanceType(t.ctx, "node-2")).toBe("sb-medium");
    expect(await instances.instanceTypeByProviderID(t.ctx, m!.providerID)).toBe("sb-medium");
    expect(await zones.getZoneByNodeName(t.ctx, "node-2")).toEqual({ failureDomain: "zone-b", region: "sandbox-1" });
    expect(await zones.getZoneByProviderID(t.ctx, m!.providerID)).toEqual({
      failureDomain: "zone-b",
      region: "sandbox-1",
    });
  });

  test("existence and shutdown by provider ID: stopped exists and is shut down, deleted does not exist", async () => {
    const [a, b] = createMachines(t.cloud.state, 2);
    t.cloud.state.updateMachine(a!.id, { state: "stopped" });
    t.cloud.state.deleteMachine(b!.id);
    const { instances } = createLegacyInstances(t.api);
    expect(await instances.instanceExistsByProviderID(t.ctx, a!.providerID)).toBe(true);
    expect(await instances.instanceShutdownByProviderID(t.ctx, a!.providerID)).toBe(true);
    expect(await instances.instanceExistsByProviderID(t.ctx, b!.providerID)).toBe(false);
  });

  test.each([
    ["an unknown node name", (i: ReturnType<typeof createLegacyInstances>) => i.instances.instanceID(t.ctx, "ghost")],
    [
      "a provider ID naming no machine",
      (i: ReturnType<typeof createLegacyInstances>) => i.instances.nodeAddressesByProviderID(t.ctx, "sandbox://m-x"),
    ],
  ])("throw InstanceNotFoundError for %s", async (_name, call) => {
    const err = await rejection(() => call(createLegacyInstances(t.api)));
    expect(isError(err, InstanceNotFoundError)).toBe(true);
  });

  test("an empty provider ID fails naming the operation (the framework then asks by name)", async () => {
    const err = await rejection(() => createLegacyInstances(t.api).instances.instanceTypeByProviderID(t.ctx, ""));
    expect(err.message).toBe(
      'sandbox/instances.instanceTypeByProviderID provider ID "": provider ID "" does not start with "sandbox://"',
    );
  });

  test("a hidden provider ID reads as a cloud without instance IDs; the zone of the manager's host is unknown", async () => {
    t.cloud.state.createMachine({ name: "node-1", providerIDHidden: true });
    const { instances, zones } = createLegacyInstances(t.api);
    expect(isError(await rejection(() => instances.instanceID(t.ctx, "node-1")), NotImplementedError)).toBe(true);
    expect(isError(await rejection(() => zones.getZone(t.ctx)), NotImplementedError)).toBe(true);
  });

  test("the provider serves them instead of InstancesV2 when asked for legacy", () => {
    const legacy: CloudProvider = sandboxProvider(t.api, { instances: "legacy" });
    expect([legacy.instancesV2, typeof legacy.instances, typeof legacy.zones]).toEqual([undefined, "object", "object"]);
    const v2: CloudProvider = sandboxProvider(t.api);
    expect([typeof v2.instancesV2, v2.instances, v2.zones]).toEqual(["object", undefined, undefined]);
  });
});
