import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { addFlavor, addNetwork, addTrunk } from "../../sandbox/openstack/state.ts";
import { type Harness, startHarness } from "../../sandbox/openstack/testing.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { isLabelValue, sanitizeLabel } from "./instances.ts";
import { osProvider, passwordConf } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
const node = (name: string, providerID?: string): Node => ({
  metadata: { name },
  spec: providerID === undefined ? {} : { providerID },
});

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

async function instances(extra = "", env: Record<string, string> = {}) {
  const provider = await osProvider(h, passwordConf(h, extra), env);
  if (!provider.instancesV2) throw new Error("no instancesV2");
  return provider.instancesV2;
}

describe("openstack instances", () => {
  test("answers OCCM's metadata for a server found by name: provider ID, flavor, zone, region, addresses", async () => {
    const id = h.server({ name: "node-1", flavor: "m1.large", availabilityZone: "az 1", floatingIP: true });
    const metadata = await (await instances()).instanceMetadata(ctx, node("node-1"));
    expect(metadata).toEqual({
      providerID: `openstack:///${id}`,
      instanceType: "m1.large",
      zone: "az-1",
      region: "RegionOne",
      nodeAddresses: [
        { type: "InternalIP", address: "10.0.0.10" },
        { type: "ExternalIP", address: "203.0.113.10" },
      ],
    });
  });

  test("with OS_CCM_REGIONAL=true the provider ID names the region; both forms are found", async () => {
    const id = h.server({ name: "node-1" });
    const i = await instances("", { OS_CCM_REGIONAL: "true" });
    expect((await i.instanceMetadata(ctx, node("node-1")))?.providerID).toBe(`openstack://RegionOne/${id}`);
    expect(await i.instanceExists(ctx, node("x", `openstack://RegionOne/${id}`))).toBe(true);
    expect(await i.instanceExists(ctx, node("x", `openstack:///${id}`))).toBe(true);
  });

  test("a provider ID naming another region is an error, never gone", async () => {
    const id = h.server({ name: "node-1" });
    expect((await instances()).instanceExists(ctx, node("node-1", `openstack://RegionTwo/${id}`))).rejects.toThrow(
      /names region RegionTwo/,
    );
  });

  test("finds a server by provider ID whatever its name; a SHUTOFF server exists and is shut down", async () => {
    const id = h.server({ name: "renamed", status: "SHUTOFF" });
    const i = await instances();
    expect(await i.instanceExists(ctx, node("node-1", `openstack:///${id}`))).toBe(true);
    expect(await i.instanceShutdown(ctx, node("node-1", `openstack:///${id}`))).toBe(true);
    expect(i.instanceMetadata(ctx, node("node-1"))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  test.each(["ERROR", "PAUSED", "BUILD"])("a server in %s is not shut down: only SHUTOFF is", async (status) => {
    const id = h.server({ name: "node-1", status });
    expect(await (await instances()).instanceShutdown(ctx, node("node-1", `openstack:///${id}`))).toBe(false);
  });

  test("two servers of the Node's name are an error, never a guess", async () => {
    h.server({ name: "node-1" });
    h.server({ name: "node-1" });
    expect((await instances()).instanceExists(ctx, node("node-1"))).rejects.toThrow(/2 servers are named "node-1"/);
  });

  test("a name is matched exactly, not as Nova's regular expression", async () => {
    h.server({ name: "node-10" });
    h.server({ name: "node.1" });
    expect(await (await instances()).instanceExists(ctx, node("node-1"))).toBe(false);
  });

  test("an API failure is no answer: the Node is not called gone", async () => {
    const id = h.server({ name: "node-1" });
    const i = await instances();
    await h.call("PUT", "/_emulator/faults", {
      body: { failNext: [{ pathPrefix: "/compute/", status: 503, count: 10 }] },
      token: null,
    });
    expect(i.instanceExists(ctx, node("node-1", `openstack:///${id}`))).rejects.toThrow(/instanceExists.*503/);
  });

  test("a flavor whose name is no label value gives its ID, as OCCM does", async () => {
    const flavor = addFlavor(h.emulator.world, { name: "GPU flavor (large)" });
    const id = h.server({ name: "node-1", flavor: flavor.name });
    const metadata = await (await instances()).instanceMetadata(ctx, node("node-1", `openstack:///${id}`));
    expect(metadata?.instanceType).toBe(flavor.id);
  });

  test("a Nova older than 2.47 gets the calls again without a microversion, and the flavor's name by its ID", async () => {
    await h.stop();
    h = startHarness({ novaMaxMicroversion: [2, 46] });
    const id = h.server({ name: "node-1", flavor: "m1.large" });
    const i = await instances();
    expect((await i.instanceMetadata(ctx, node("node-1", `openstack:///${id}`)))?.instanceType).toBe("m1.large");
    expect((await i.instanceMetadata(ctx, node("node-1")))?.instanceType).toBe("m1.large");
    // One refused call, then none: the microversion is dropped for good.
    expect(h.emulator.calls.count("GET /compute/v2.1/servers/:id")).toBe(2);
    expect(h.emulator.calls.count("GET /compute/v2.1/flavors/:id")).toBe(2);
  });

  test("a trunk's sub-ports add their addresses on their networks; one that is gone is left out", async () => {
    addNetwork(h.emulator.world, { name: "vlan-100", prefix: "172.16.100." });
    const id = h.server({ name: "node-1" });
    const [sub] = addTrunk(h.emulator.world, id, ["vlan-100", "vlan-100"]);
    const i = await instances();
    const metadata = await i.instanceMetadata(ctx, node("node-1", `openstack:///${id}`));
    expect(metadata?.nodeAddresses).toEqual([
      { type: "InternalIP", address: "10.0.0.10" },
      { type: "InternalIP", address: "172.16.100.10" },
      { type: "InternalIP", address: "172.16.100.11" },
    ]);
    h.emulator.world.ports.delete(sub?.id ?? "");
    const after = await i.instanceMetadata(ctx, node("node-1", `openstack:///${id}`));
    expect(after?.nodeAddresses.map((a) => a.address)).toEqual(["10.0.0.10", "172.16.100.11"]);
  });

  test("[Networking] selects and orders the addresses", async () => {
    h.server({ name: "node-1", networks: ["private", "private-v6"], floatingIP: true });
    const metadata = await (
      await instances("[Networking]\npublic-network-name = private-v6\naddress-sort-order = 203.0.113.0/24\n")
    ).instanceMetadata(ctx, node("node-1"));
    expect(metadata?.nodeAddresses).toEqual([
      { type: "ExternalIP", address: "203.0.113.10" },
      { type: "InternalIP", address: "10.0.0.10" },
      { type: "ExternalIP", address: "fd00::10" },
    ]);
  });

  test("the bulk form answers every Node from one paged listing of servers and one of ports", async () => {
    const ids = Array.from({ length: 1005 }, (_, n) => h.server({ name: `node-${n}` }));
    const i = await instances();
    const nodes = [node("node-0"), node("node-1004", `openstack:///${ids[1004]}`), node("missing")];
    const result = await i.instanceMetadataBulk?.(ctx, nodes);
    expect(result?.get("node-0")?.metadata.providerID).toBe(`openstack:///${ids[0]}`);
    expect(result?.get("node-1004")?.shutdown).toBe(false);
    expect(result?.get("node-1004")?.metadata.nodeAddresses).toHaveLength(1);
    expect(result?.has("missing")).toBe(false);
    expect(h.emulator.calls.count("GET /compute/v2.1/servers/detail")).toBe(2);
    expect(h.emulator.calls.count("GET /networking/v2.0/ports")).toBe(1);
  });
});

describe("labels from OpenStack names", () => {
  test.each([
    ["nova", "nova"],
    ["az 1", "az-1"],
    ["--zone.a_", "zone.a"],
    ["zone/é/b", "zone-b"],
  ])("the zone %p is labelled %p", (zone, label) => {
    expect(sanitizeLabel(zone)).toBe(label);
    expect(isLabelValue(sanitizeLabel(zone))).toBe(true);
  });
});
