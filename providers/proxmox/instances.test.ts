import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CloudProvider, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { instanceTypeOf } from "./instances.ts";
import { ctx, node, startTestClusters, type TestClusters } from "./testing.ts";

let t: TestClusters;
let provider: CloudProvider;
let v2: InstancesV2;
const east = () => t.clusters.east!;
const west = () => t.clusters.west!;

beforeEach(async () => {
  t = await startTestClusters();
  provider = await t.provider("{ network: { mode: auto } }");
  v2 = provider.instancesV2!;
});
afterEach(() => t.stop());

describe("proxmox instances", () => {
  test("finds a VM by name in either cluster: region = cluster, zone = Proxmox node, the peer's labels", async () => {
    const vm = west().state.addVM({ name: "w1", node: "pve-c", cpus: 4, maxmem: 8 * 2 ** 30 });
    expect(await v2.instanceMetadata(ctx, node("w1"))).toEqual({
      providerID: `proxmox://west/${vm.vmid}`,
      instanceType: "4VCPU-8GB",
      nodeAddresses: [{ type: "Hostname", address: "w1" }],
      zone: "pve-c",
      region: "west",
      additionalLabels: {
        "topology.proxmox.sinextra.dev/region": "west",
        "topology.proxmox.sinextra.dev/zone": "pve-c",
      },
    });
  });

  test("takes the instance type from the SMBIOS sku when it is a plain name", () => {
    expect(instanceTypeOf({ maxcpu: 2, maxmem: 3.5 * 2 ** 30 }, undefined)).toBe("2VCPU-3GB");
    expect(instanceTypeOf({ maxcpu: 2, maxmem: 2 ** 30 }, "c2.large")).toBe("c2.large");
    expect(instanceTypeOf({ maxcpu: 2, maxmem: 2 ** 30 }, "bad sku!")).toBe("2VCPU-1GB");
  });

  test("tells apart same-named VMs by the node's system UUID, and refuses to guess without one", async () => {
    east().state.addVM({ name: "twin", uuid: "11111111-1111-4111-8111-111111111111" });
    const b = west().state.addVM({ name: "twin", uuid: "22222222-2222-4222-8222-222222222222", sku: "m1.small" });
    const meta = await v2.instanceMetadata(ctx, node("twin", { uuid: "22222222-2222-4222-8222-222222222222" }));
    expect(meta).toMatchObject({ providerID: `proxmox://west/${b.vmid}`, instanceType: "m1.small" });
    await expect(v2.instanceMetadata(ctx, node("twin"))).rejects.toThrow('several VMs match node "twin"');
  });

  test("does not take worker-10 for a deleted worker-1", async () => {
    east().state.addVM({ name: "worker-10" });
    expect(await v2.instanceExists(ctx, node("worker-1"))).toBe(false);
    east().state.addVM({ name: "worker-1.lab.example" });
    expect(await v2.instanceExists(ctx, node("worker-1"))).toBe(true);
  });

  test("a VM ID now held by another VM is not the node's", async () => {
    const vm = east().state.addVM({ name: "n1" });
    east().state.updateVM(vm.vmid, { name: "someone-else" });
    expect(await v2.instanceExists(ctx, node("n1", { providerID: `proxmox://east/${vm.vmid}` }))).toBe(false);
  });

  test("a cluster that does not answer makes a name lookup an error, never 'gone'; the other cluster goes on", async () => {
    const vm = east().state.addVM({ name: "e1" });
    await west().setDown(true);
    await expect(v2.instanceExists(ctx, node("gone-somewhere"))).rejects.toThrow("west did not");
    expect(await v2.instanceExists(ctx, node("e1"))).toBe(true);
    expect(await v2.instanceExists(ctx, node("e1", { providerID: `proxmox://east/${vm.vmid}` }))).toBe(true);
    await expect(v2.instanceExists(ctx, node("x", { providerID: "proxmox://west/100" }))).rejects.toThrow(
      "proxmox/api[west].listVMs",
    );
    const bulk = await v2.instanceMetadataBulk!(ctx, [node("e1"), node("w9", { providerID: "proxmox://west/100" })]);
    expect([...bulk.keys()]).toEqual(["e1"]);
  });

  test("a VM on an offline Proxmox node exists, is not shut down, and has no metadata yet", async () => {
    east().state.addVM({ name: "e1", node: "pve-b" });
    east().state.setNodeStatus("pve-b", "offline");
    expect(await v2.instanceExists(ctx, node("e1"))).toBe(true);
    expect(await v2.instanceShutdown(ctx, node("e1"))).toBe(false);
    expect(await v2.instanceMetadata(ctx, node("e1"))).toBeNull();
  });

  test("an unconfigured region in a provider ID is an error naming it, not a deletion", async () => {
    await expect(v2.instanceExists(ctx, node("n", { providerID: "proxmox://north/101" }))).rejects.toThrow(
      'region "north" of provider ID proxmox://north/101 is not configured (clusters: east, west)',
    );
  });

  test("addresses from the guest agent in auto mode, and the kubelet's alone when the agent is not running", async () => {
    east().state.addVM({ name: "a1", agent: [{ name: "eth0", addresses: ["192.0.2.7"] }] });
    east().state.addVM({ name: "a2" });
    expect((await v2.instanceMetadata(ctx, node("a1")))!.nodeAddresses).toContainEqual({
      type: "InternalIP",
      address: "192.0.2.7",
    });
    expect((await v2.instanceMetadata(ctx, node("a2", { nodeIP: "10.1.1.1" })))!.nodeAddresses).toEqual([
      { type: "Hostname", address: "a2" },
      { type: "InternalIP", address: "10.1.1.1" },
    ]);
  });

  test("the bulk lookup answers every node with one listing per cluster once the configs are known", async () => {
    const bulk = (await t.provider()).instancesV2!.instanceMetadataBulk!;
    const nodes = Array.from({ length: 20 }, (_, i) => {
      const cluster = i % 2 === 0 ? east() : west();
      cluster.state.addVM({ name: `n${i}`, node: i % 2 === 0 ? "pve-a" : "pve-c" });
      return node(`n${i}`);
    });
    await bulk(ctx, nodes);
    for (const c of [east(), west()]) c.calls.length = 0;
    const answers = await bulk(ctx, nodes);
    expect([...answers.values()].every((a) => a !== null && !a.shutdown)).toBe(true);
    const calls = [...east().calls, ...west().calls].map((c) => c.path);
    console.log(`bulk refresh of ${nodes.length} nodes in 2 clusters (network mode default): ${calls.length} calls`);
    expect(calls.sort()).toEqual(["/api2/json/cluster/resources?type=vm", "/api2/json/cluster/resources?type=vm"]);
  });

  test("with ha_group the zone is the VM's HA group; on Proxmox VE 9 that is an error saying why", async () => {
    const p = await t.provider("{ ha_group: true }");
    east().state.haGroups = [{ group: "rack1", nodes: ["pve-a", "pve-b"] }];
    east().state.addVM({ name: "h1", node: "pve-b" });
    const meta = await p.instancesV2!.instanceMetadata(ctx, node("h1"));
    expect(meta).toMatchObject({
      zone: "rack1",
      additionalLabels: { "group.topology.proxmox.sinextra.dev/rack1": "" },
    });
    east().state.haGroups = undefined;
    await expect(p.instancesV2!.instanceMetadata(ctx, node("h1"))).rejects.toThrow(
      "ha groups have been migrated to rules",
    );
  });

  test("capmox: the provider ID is the system UUID, and such a node is found by it", async () => {
    const p = await t.provider("{ provider: capmox }");
    const uuid = "33333333-3333-4333-8333-333333333333";
    west().state.addVM({ name: "vm-with-other-name", uuid });
    const meta = await p.instancesV2!.instanceMetadata(ctx, node("capi-node", { uuid }));
    expect(meta?.providerID).toBe(`proxmox://${uuid}`);
    expect(await p.instancesV2!.instanceExists(ctx, node("capi-node", { providerID: `proxmox://${uuid}` }))).toBe(true);
  });

  test("a deleted VM is not found (not wrapped, so the node controller knows it)", async () => {
    const vm = east().state.addVM({ name: "d1" });
    east().state.deleteVM(vm.vmid);
    await expect(v2.instanceMetadata(ctx, node("d1"))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });
});

describe.each(["message", "reason-only"] as const)("a VM deleted between the listing and its config read", (errors) => {
  test(`is not found when Proxmox VE says so ${errors === "message" ? "in the body" : "in the status line only"}`, async () => {
    const own = await startTestClusters({ east: ["pve-a"] }, { errors });
    try {
      const p = await own.provider();
      const vm = own.clusters.east!.state.addVM({ name: "racer" });
      // The listing still has it; its config file is already gone, as Proxmox VE then answers.
      const gone = `Configuration file 'nodes/pve-a/qemu-server/${vm.vmid}.conf' does not exist`;
      own.clusters.east!.faults.fail(500, gone, 1, "/config");
      const providerID = `proxmox://east/${vm.vmid}`;
      await expect(p.instancesV2!.instanceMetadata(ctx, node("racer", { providerID }))).rejects.toBeInstanceOf(
        InstanceNotFoundError,
      );
    } finally {
      await own.stop();
    }
  });
});

describe("proxmox doctor check", () => {
  test("checks every cluster's token and names each cluster that fails", async () => {
    await provider.verifyAccess!(ctx);
    await west().setDown(true);
    {
      const text = t
        .config()
        .replace(/token_secret: "[^"]+", region: east/, 'token_secret: "wrong-secret-value", region: east');
      const { proxmox } = await import("./provider.ts");
      const p = await proxmox.build(
        { config: text, configSource: "t", env: {} },
        { readFile: async () => east().ca, retry: { maxRetries: 0 } },
      );
      const err = await p.verifyAccess!(ctx).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toContain("2 of 2 Proxmox clusters failed");
      expect(err?.message).toContain("cluster east: proxmox/api[east].version: 401");
      expect(err?.message).not.toContain("wrong-secret-value");
      expect(err?.message).toContain("cluster west: proxmox/api[west].version:");
    }
  });
});
