import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { FakeCloud } from "./fake-cloud.ts";

const ctx = { signal: new AbortController().signal };
const node = (name: string, providerID?: string): Node => ({
  metadata: { name },
  ...(providerID ? { spec: { providerID } } : {}),
});
const service: Service = {
  metadata: { name: "web", namespace: "default", uid: "12345678-90ab-cdef-1234-567890abcdef" },
  spec: { type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }] },
};

describe("FakeCloud", () => {
  test("leaves instancesV2 off by default and turns capabilities off by switch, like upstream", () => {
    const cloud = new FakeCloud();
    expect(cloud.instancesV2).toBeUndefined();
    expect(cloud.instances).toBeDefined();
    cloud.disableInstances = true;
    cloud.disableLoadBalancers = true;
    cloud.disableRoutes = true;
    cloud.disableZones = true;
    cloud.disableClusters = true;
    expect([cloud.instances, cloud.loadBalancer, cloud.routes, cloud.zones, cloud.clusters]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    cloud.enableInstancesV2 = true;
    expect(cloud.instancesV2?.instanceMetadataBulk).toBeUndefined();
    cloud.enableBulk = true;
    expect(cloud.instancesV2?.instanceMetadataBulk).toBeDefined();
  });

  test("records calls under upstream names with their arguments, but not getLoadBalancer", async () => {
    const cloud = new FakeCloud();
    cloud.externalIP = "1.2.3.4";
    const lb = cloud.loadBalancer!;
    await lb.getLoadBalancer(ctx, "kubernetes", service);
    const status = await lb.ensureLoadBalancer(ctx, "kubernetes", service, [node("n1")]);
    await lb.updateLoadBalancer(ctx, "kubernetes", service, [node("n2")]);
    await lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service);
    expect(cloud.callNames()).toEqual(["create", "get-zone", "update", "delete"]);
    expect(cloud.calls[0]?.args[1]).toBe("kubernetes");
    expect(status.ingress?.[0]).toEqual({ ip: "1.2.3.4", ports: [{ port: 80, protocol: "TCP" }] });
    expect(cloud.ensureCalls[0]?.hosts.map((n) => n.metadata?.name)).toEqual(["n1"]);
  });

  test("returns metadata from its tables: provider ID by node name, instance type by provider ID", async () => {
    const cloud = new FakeCloud();
    cloud.enableInstancesV2 = true;
    cloud.providerID = { n1: "fake://1" };
    cloud.instanceTypes = { "fake://1": "big" };
    cloud.zone = { failureDomain: "z1", region: "r1" };
    const md = await cloud.instancesV2!.instanceMetadata(ctx, node("n1", "fake://1"));
    expect(md).toEqual({ providerID: "fake://1", instanceType: "big", nodeAddresses: [], zone: "z1", region: "r1" });
    expect(cloud.callNames()).toEqual(["instance-metadata-by-provider-id"]);
  });

  test("lets a test program a single method and still records the call", async () => {
    const cloud = new FakeCloud();
    cloud.enableInstancesV2 = true;
    cloud.override("instanceExists", async () => {
      throw new InstanceNotFoundError("n1");
    });
    await expect(cloud.instancesV2!.instanceExists(ctx, node("n1"))).rejects.toBeInstanceOf(InstanceNotFoundError);
    expect(cloud.callNames()).toEqual(["instance-exists"]);
  });

  test.each([
    ["an unknown name", {}, ""],
    ["a known name", { n1: "i-1" }, "i-1"],
  ])("answers instanceID for %s", async (_label, extID, want) => {
    const cloud = new FakeCloud();
    cloud.extID = extID;
    expect(await cloud.instances!.instanceID(ctx, "n1")).toBe(want);
  });

  test("fails a second create of the same route and keeps failing, like upstream's fake", async () => {
    const cloud = new FakeCloud();
    const routes = cloud.routes!;
    const route = { name: "", targetNode: "n1", destinationCIDR: "10.0.0.0/24" };
    await routes.createRoute(ctx, "c", "uid-1", route);
    expect((await routes.listRoutes(ctx, "c")).map((r) => r.name)).toEqual(["c-n1-10.0.0.0/24"]);
    await expect(routes.createRoute(ctx, "c", "uid-1", route)).rejects.toThrow(
      'route "c-n1-10.0.0.0/24" already exists',
    );
    await expect(routes.listRoutes(ctx, "c")).rejects.toThrow("already exists");
  });

  test("errors on deleting an unknown route with upstream's message", async () => {
    const cloud = new FakeCloud();
    await expect(
      cloud.routes!.deleteRoute(ctx, "c", { name: "x", targetNode: "n9", destinationCIDR: "10.9.0.0/24" }),
    ).rejects.toThrow("no route found for node:n9 with DestinationCIDR== 10.9.0.0/24");
  });

  test("refuses a shutdown query for an empty provider ID on the legacy path", async () => {
    const cloud = new FakeCloud();
    await expect(cloud.instances!.instanceShutdownByProviderID(ctx, "")).rejects.toThrow(
      "cannot shutdown instance with empty providerID",
    );
  });
});
