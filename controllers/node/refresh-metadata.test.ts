import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo, InstanceMetadata } from "../../providers/cloud.ts";
import { NotImplementedError } from "../../providers/errors.ts";
import { forEachLimited, getInstanceNodeAddresses, getRefreshMetadata } from "./metadata.ts";
import { addr, cloudAddresses, ctx, legacyCloud, node, providerID, rejection, v2Cloud } from "./node-fixtures.ts";

describe("getInstanceNodeAddresses (periodic refresh)", () => {
  test("asks InstancesV2 for metadata once", async () => {
    const cloud = v2Cloud();
    const md = await getInstanceNodeAddresses(cloud, ctx(), node("n1", providerID("p")));
    expect(md?.nodeAddresses).toEqual(cloudAddresses);
    expect(cloud.callNames()).toEqual(["instance-metadata-by-provider-id"]);
  });

  test("passes InstancesV2's null through", async () => {
    const cloud = v2Cloud((c) => c.override("instanceMetadata", async () => null));
    expect(await getInstanceNodeAddresses(cloud, ctx(), node("n1"))).toBeNull();
  });

  test("legacy: addresses only, by provider ID then name", async () => {
    const cloud = legacyCloud((c) =>
      c.override("nodeAddressesByProviderID", async () => Promise.reject(new Error("e1"))),
    );
    const md = await getInstanceNodeAddresses(cloud, ctx(), node("n1", providerID("p")));
    expect(md).toEqual({ providerID: "", instanceType: "", nodeAddresses: cloudAddresses, zone: "", region: "" });
    expect(cloud.callNames()).toEqual(["node-addresses-by-provider-id", "node-addresses"]);
  });

  test("fails without Instances", async () => {
    const err = await rejection(
      getInstanceNodeAddresses(
        legacyCloud((c) => (c.disableInstances = true)),
        ctx(),
        node("n1"),
      ),
    );
    expect(err.message).toBe("failed to get instances from cloud provider");
  });
});

describe("getRefreshMetadata", () => {
  const nodes = ["n1", "n2", "n3"].map((n) => node(n, providerID(`fake://${n}`)));
  const md = (id: string): InstanceMetadata => ({
    providerID: id,
    instanceType: "",
    nodeAddresses: [addr("InternalIP", `10.0.0.${id.length}`)],
    zone: "",
    region: "",
  });

  test("answers every node with one bulk call", async () => {
    const cloud = v2Cloud((c) => {
      c.enableBulk = true;
      c.existsByProviderID = true;
    });
    const out = await getRefreshMetadata(cloud, ctx(), nodes);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk"]);
    expect([...out.keys()].sort()).toEqual(["n1", "n2", "n3"]);
    for (const answer of out.values())
      expect(answer).toMatchObject({ kind: "metadata", metadata: { nodeAddresses: cloudAddresses } });
  });

  test("reads a null bulk entry as nothing to apply, and looks up missing nodes one by one", async () => {
    const cloud = v2Cloud((c) => {
      c.enableBulk = true;
      c.providerID = { n3: "fake://n3" };
      c.override("instanceMetadataBulk", async (_ctx, _nodes: readonly Node[]) => {
        const m = new Map<string, BulkInstanceInfo | null>();
        m.set("n1", { metadata: md("fake://n1"), shutdown: false });
        m.set("n2", null);
        return m;
      });
    });
    const out = await getRefreshMetadata(cloud, ctx(), nodes);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk", "instance-metadata-by-provider-id"]);
    expect(out.get("n1")).toEqual({ kind: "metadata", metadata: md("fake://n1") });
    expect(out.get("n2")).toEqual({ kind: "metadata", metadata: null });
    expect(out.get("n3")).toMatchObject({ kind: "metadata", metadata: { providerID: "fake://n3" } });
  });

  test("falls back to per-node lookups when the bulk call is not implemented", async () => {
    const cloud = v2Cloud((c) => {
      c.enableBulk = true;
      c.override("instanceMetadataBulk", async () => Promise.reject(new NotImplementedError()));
    });
    const out = await getRefreshMetadata(cloud, ctx(), nodes, { concurrency: 2 });
    expect(cloud.callNames().filter((n) => n === "instance-metadata-by-provider-id")).toHaveLength(3);
    expect(out.size).toBe(3);
  });

  test("gives every node the bulk call's error and makes no per-node calls", async () => {
    const boom = new Error("rate limited");
    const cloud = v2Cloud((c) => {
      c.enableBulk = true;
      c.metadataErr = boom;
    });
    const out = await getRefreshMetadata(cloud, ctx(), nodes);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk"]);
    for (const answer of out.values()) expect(answer).toEqual({ kind: "error", error: boom });
  });

  test("without the bulk capability: one lookup per node, errors kept per node", async () => {
    const cloud = legacyCloud((c) =>
      c.override("nodeAddressesByProviderID", async (_ctx, id: string) =>
        id === "fake://n2" ? Promise.reject(new Error("e1")) : cloudAddresses,
      ),
    );
    cloud.override("nodeAddresses", async () => Promise.reject(new Error("e2")));
    const out = await getRefreshMetadata(cloud, ctx(), nodes, { concurrency: 3 });
    expect(out.get("n1")).toMatchObject({ kind: "metadata", metadata: { nodeAddresses: cloudAddresses } });
    expect(out.get("n2")?.kind).toBe("error");
    expect(out.get("n3")?.kind).toBe("metadata");
  });

  test("makes no call for no nodes", async () => {
    const cloud = v2Cloud((c) => (c.enableBulk = true));
    expect((await getRefreshMetadata(cloud, ctx(), [])).size).toBe(0);
    expect(cloud.calls).toHaveLength(0);
  });
});

describe("forEachLimited", () => {
  test("visits every item with at most `limit` in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await Promise.resolve();
      seen.push(i);
      inFlight--;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBeLessThanOrEqual(3);
  });
});
