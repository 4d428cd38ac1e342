import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { type Harness, PRIVATE_NETWORK, startHarness } from "../../sandbox/scaleway/testing.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { scwProvider } from "./testing.ts";

const ctx = { signal: AbortSignal.timeout(10_000) };
const OTHER_NETWORK = "0e2b6d4c-1b2a-4c3d-8e5f-000000000002";

const node = (name: string, providerID?: string, labels?: Record<string, string>): Node => ({
  metadata: { name, ...(labels && { labels }) },
  spec: providerID === undefined ? {} : { providerID },
});

let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

async function instances(env: Record<string, string> = {}) {
  const provider = await scwProvider(h, env);
  if (!provider.instancesV2) throw new Error("no instancesV2");
  return provider.instancesV2;
}

/** The IPv4 IPAM booked to the server's first NIC, without its prefix length. */
function nicIPv4(nicId: string): string {
  const ip = [...h.emulator.world.ips.values()].find((i) => i.resource?.id === nicId && !i.isIpv6);
  return ip?.address.replace(/\/\d+$/, "") ?? "";
}

describe("scaleway instances", () => {
  test("an Instance found by name: scw CCM's provider ID, type, zone, region and addresses", async () => {
    const s = h.instance({
      name: "node-1",
      zone: "fr-par-2",
      commercial_type: "PRO2-S",
      private_networks: [PRIVATE_NETWORK],
    });
    const metadata = await (await instances()).instanceMetadata(ctx, node("node-1"));
    expect(metadata).toEqual({
      providerID: `scaleway://instance/fr-par-2/${s.id}`,
      instanceType: "PRO2-S",
      zone: "fr-par-2",
      region: "fr-par",
      nodeAddresses: [
        { type: "Hostname", address: "node-1" },
        { type: "ExternalIP", address: s.publicIps[0]?.address ?? "" },
        { type: "ExternalDNS", address: `${s.id}.pub.instances.scw.cloud` },
        { type: "InternalIP", address: nicIPv4(s.privateNics[0]?.id ?? "") },
      ],
    });
  });

  test.each([
    ["every NIC's IPAM IPv4 without PN_ID", {}, 2],
    ["only the NIC on PN_ID's network with it", { PN_ID: OTHER_NETWORK }, 1],
  ])("InternalIPs: %s", async (_, env, count) => {
    const s = h.instance({ name: "node-1", private_networks: [PRIVATE_NETWORK, OTHER_NETWORK] });
    const metadata = await (await instances(env)).instanceMetadata(ctx, node("node-1"));
    const internal = metadata?.nodeAddresses.filter((a) => a.type === "InternalIP").map((a) => a.address);
    expect(internal).toHaveLength(count);
    expect(internal).toContain(nicIPv4(s.privateNics[1]?.id ?? ""));
  });

  test("without private NICs, the legacy private_ip with its InternalDNS; no IPv6 and no ExternalIP without DHCP IPv4", async () => {
    const s = h.instance({ name: "node-1", public_ipv4: false, public_ipv6: true, private_ip: "10.1.2.3" });
    const metadata = await (await instances()).instanceMetadata(ctx, node("node-1"));
    expect(metadata?.nodeAddresses).toEqual([
      { type: "Hostname", address: "node-1" },
      { type: "InternalIP", address: "10.1.2.3" },
      { type: "InternalDNS", address: `${s.id}.priv.instances.scw.cloud` },
    ]);
  });

  test("an Elastic Metal server found by name, after no Instance has it: offer, IPv4 and domain", async () => {
    const s = h.baremetal({ name: "metal-1", zone: "nl-ams-1", offer_name: "EM-B112X-SSD" });
    const metadata = await (await instances()).instanceMetadata(ctx, node("metal-1"));
    expect(metadata).toEqual({
      providerID: `scaleway://baremetal/nl-ams-1/${s.id}`,
      instanceType: "EM-B112X-SSD",
      zone: "nl-ams-1",
      region: "nl-ams",
      nodeAddresses: [
        { type: "Hostname", address: "metal-1" },
        { type: "ExternalIP", address: s.ips[0]?.address ?? "" },
        { type: "ExternalDNS", address: `${s.id}.nl-ams-1.baremetal.scw.cloud` },
      ],
    });
  });

  test.each([
    ["instance", "running", false],
    ["instance", "starting", false],
    ["instance", "stopped", true],
    ["instance", "stopped in place", true],
    ["instance", "locked", true],
    ["baremetal", "ready", false],
    ["baremetal", "starting", false],
    ["baremetal", "stopped", true],
    ["baremetal", "delivering", true],
  ] as const)("a %s that is %s: shut down %p, and it exists", async (product, state, shutdown) => {
    const providerID =
      product === "instance"
        ? `scaleway://instance/fr-par-1/${h.instance({ name: "n", state: state as "running" }).id}`
        : `scaleway://baremetal/fr-par-2/${h.baremetal({ name: "n", status: state as "ready" }).id}`;
    const i = await instances();
    expect(await i.instanceShutdown(ctx, node("n", providerID))).toBe(shutdown);
    expect(await i.instanceExists(ctx, node("n", providerID))).toBe(true);
  });

  test("the legacy scaleway://<uuid> is looked up in SCW_DEFAULT_ZONE, else in every Instance zone", async () => {
    const s = h.instance({ name: "node-1", zone: "pl-waw-3" });
    expect(
      await (await instances({ SCW_DEFAULT_ZONE: "pl-waw-3" })).instanceExists(ctx, node("x", `scaleway://${s.id}`)),
    ).toBe(true);
    expect(
      await (await instances({ SCW_DEFAULT_ZONE: "fr-par-1" })).instanceExists(ctx, node("x", `scaleway://${s.id}`)),
    ).toBe(false);
    const everywhere = await instances();
    expect((await everywhere.instanceMetadata(ctx, node("x", `scaleway://${s.id}`)))?.providerID).toBe(
      `scaleway://instance/pl-waw-3/${s.id}`,
    );
  });

  test("a server the API answers 404 for is gone; metadata throws InstanceNotFoundError", async () => {
    const i = await instances();
    const id = "11111111-2222-4333-8444-555555555555";
    expect(await i.instanceExists(ctx, node("n", `scaleway://baremetal/fr-par-2/${id}`))).toBe(false);
    expect(i.instanceMetadata(ctx, node("nobody"))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  test.each([
    ["a server read", "/instance", 1],
    ["IPAM", "/ipam", 1],
  ])("an API failure of %s is no answer: the Node is never called gone", async (_, pathPrefix) => {
    const s = h.instance({ name: "node-1", private_networks: [PRIVATE_NETWORK] });
    const i = await instances();
    await h.call("PUT", "/_emulator/faults", { failNext: [{ pathPrefix, type: "service_unavailable", count: 10 }] });
    const id = `scaleway://instance/fr-par-1/${s.id}`;
    expect(i.instanceMetadata(ctx, node("node-1", id))).rejects.toThrow(/instanceMetadata/);
    if (pathPrefix === "/instance") expect(i.instanceExists(ctx, node("node-1", id))).rejects.toThrow(/503/);
  });

  test("two servers of one name are an error naming both, never a guess", async () => {
    const a = h.instance({ name: "twin", zone: "fr-par-1" });
    const b = h.instance({ name: "twin", zone: "nl-ams-1" });
    const error = (await instances()).instanceExists(ctx, node("twin"));
    expect(error).rejects.toThrow(a.id);
    expect(error).rejects.toThrow(b.id);
  });

  test("a provider ID of another form is an error, never gone", async () => {
    expect((await instances()).instanceExists(ctx, node("n", "k3s://n"))).rejects.toThrow(/scaleway:\/\//);
  });

  test("k8s.scw.cloud/disable-lifecycle keeps the Node existing and running without a call", async () => {
    const i = await instances();
    const labels = { "k8s.scw.cloud/disable-lifecycle": "true" };
    const gone = "scaleway://instance/fr-par-1/11111111-2222-4333-8444-555555555555";
    expect(await i.instanceExists(ctx, node("n", gone, labels))).toBe(true);
    expect(await i.instanceShutdown(ctx, node("n", gone, labels))).toBe(false);
    expect(h.emulator.calls.snapshot().total).toBe(0);
  });

  test("k8s.scw.cloud/node-public-ip replaces the ExternalIP; a value that is no IP is an error naming it", async () => {
    h.instance({ name: "node-1" });
    const i = await instances();
    const metadata = await i.instanceMetadata(
      ctx,
      node("node-1", undefined, { "k8s.scw.cloud/node-public-ip": "203.0.113.7" }),
    );
    expect(metadata?.nodeAddresses.filter((a) => a.type === "ExternalIP")).toEqual([
      { type: "ExternalIP", address: "203.0.113.7" },
    ]);
    expect(
      i.instanceMetadata(ctx, node("node-1", undefined, { "k8s.scw.cloud/node-public-ip": "me" })),
    ).rejects.toThrow(/k8s.scw.cloud\/node-public-ip/);
  });

  test("the bulk form answers every Node from one listing per zone and IPAM once per region in use", async () => {
    const made = Array.from({ length: 150 }, (_, n) =>
      h.instance({ name: `node-${n}`, zone: "fr-par-1", private_networks: [PRIVATE_NETWORK] }),
    );
    const metal = h.baremetal({ name: "metal-1", status: "stopped" });
    const i = await instances();
    const nodes = [
      node("node-0"),
      node("node-149", `scaleway://instance/fr-par-1/${made[149]?.id}`),
      node("metal-1"),
      node("missing"),
    ];
    const result = await i.instanceMetadataBulk?.(ctx, nodes);
    expect(result?.get("node-0")?.metadata.nodeAddresses).toContainEqual({
      type: "InternalIP",
      address: nicIPv4(made[0]?.privateNics[0]?.id ?? ""),
    });
    expect(result?.get("node-149")?.shutdown).toBe(false);
    expect(result?.get("metal-1")).toMatchObject({
      shutdown: true,
      metadata: { providerID: `scaleway://baremetal/fr-par-2/${metal.id}` },
    });
    expect(result?.has("missing")).toBe(false);
    const calls = h.emulator.calls;
    // Nine Instance zones, fr-par-1's 150 servers on two pages; six Elastic Metal zones; fr-par's 150 NIC IPv4s.
    expect(calls.count("GET /instance/v1/zones/:zone/servers")).toBe(9 + 1);
    expect(calls.count("GET /baremetal/v1/zones/:zone/servers")).toBe(6);
    expect(calls.count("GET /ipam/v1/regions/:region/ips")).toBe(2);
  });
});
