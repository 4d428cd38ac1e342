import { describe, expect, test } from "bun:test";
import { InstanceNotFoundError, NotImplementedError, wrapError } from "../../providers/errors.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { FallbackLookupError, InstanceMetadataError, MissingProviderIDError } from "./errors.ts";
import { cloudNodeUnsupported, fetchInitializationMetadata, getInstanceMetadata } from "./metadata.ts";
import {
  cloudAddresses,
  ctx,
  legacyCloud,
  node,
  providerID,
  rejection,
  uninitialized,
  v2Cloud,
} from "./node-fixtures.ts";
import { getInstanceProviderID } from "./provider-id.ts";

describe("getInstanceMetadata with InstancesV2", () => {
  test("returns the provider's metadata with one call and never asks Zones", async () => {
    const cloud = v2Cloud((c) => {
      c.providerID = { n1: "fake://i-1" };
      c.instanceTypes = { "fake://i-1": "big" };
      c.zone = { failureDomain: "z1", region: "r1" };
      c.additionalLabels = { "app.example/x": "y" };
    });
    const md = await getInstanceMetadata(cloud, ctx(), node("n1", uninitialized, providerID("fake://i-1")));
    expect(md).toEqual({
      providerID: "fake://i-1",
      instanceType: "big",
      nodeAddresses: cloudAddresses,
      zone: "z1",
      region: "r1",
      additionalLabels: { "app.example/x": "y" },
    });
    expect(cloud.callNames()).toEqual(["instance-metadata-by-provider-id"]);
  });

  test("fills an empty provider ID from the node's", async () => {
    const md = await getInstanceMetadata(v2Cloud(), ctx(), node("n1", providerID("fake://i-1")));
    expect(md?.providerID).toBe("fake://i-1");
  });

  test("fails when neither the cloud nor the node has a provider ID, keeping the metadata", async () => {
    const err = await rejection(getInstanceMetadata(v2Cloud(), ctx(), node("n1")));
    expect(err).toBeInstanceOf(MissingProviderIDError);
    expect(err.message).toBe("cloud provider does not set node provider ID for node n1");
    expect((err as MissingProviderIDError).metadata.nodeAddresses).toEqual(cloudAddresses);
  });

  test("passes null metadata through", async () => {
    const cloud = v2Cloud((c) => c.override("instanceMetadata", async () => null));
    expect(await getInstanceMetadata(cloud, ctx(), node("n1"))).toBeNull();
  });

  test("passes the provider's error through unchanged", async () => {
    const boom = new InstanceNotFoundError();
    const err = await rejection(
      getInstanceMetadata(
        v2Cloud((c) => (c.metadataErr = boom)),
        ctx(),
        node("n1"),
      ),
    );
    expect(err).toBe(boom);
  });

  test("fetchInitializationMetadata prefixes failures with the node name", async () => {
    const cloud = v2Cloud((c) => (c.metadataErr = new Error("boom")));
    const err = await rejection(fetchInitializationMetadata(cloud, ctx(), node("n1")));
    expect(err).toBeInstanceOf(InstanceMetadataError);
    expect(err.message).toBe("failed to get instance metadata for node n1: boom");
    const missing = await rejection(fetchInitializationMetadata(v2Cloud(), ctx(), node("n1")));
    expect(missing.message).toBe(
      "failed to get instance metadata for node n1: cloud provider does not set node provider ID for node n1",
    );
  });
});

describe("getInstanceProviderID", () => {
  test.each([
    { name: "builds <provider>://<id>", provider: "", id: "i-1", want: "fake://i-1" },
    { name: "uses the provider's name", provider: "aws", id: "i-1", want: "aws://i-1" },
    { name: "keeps a blank instance ID as <provider>://", provider: "", id: "", want: "fake://" },
  ])("$name", async ({ provider, id, want }) => {
    const cloud = legacyCloud((c) => {
      c.provider = provider;
      if (id) c.extID = { n1: id };
    });
    expect(await getInstanceProviderID(cloud, ctx(), "n1")).toBe(want);
  });

  test.each([
    ["InstanceNotFoundError", new InstanceNotFoundError()],
    ["NotImplementedError", new NotImplementedError()],
  ])("passes %s through unchanged", async (_, e) => {
    const err = await rejection(
      getInstanceProviderID(
        legacyCloud((c) => (c.extIDErr = { n1: e })),
        ctx(),
        "n1",
      ),
    );
    expect(err).toBe(e);
  });

  test("wraps any other error", async () => {
    const boom = new Error("boom");
    const err = await rejection(
      getInstanceProviderID(
        legacyCloud((c) => (c.extIDErr = { n1: boom })),
        ctx(),
        "n1",
      ),
    );
    expect(err.message).toBe("failed to get instance ID from cloud provider: boom");
    expect(err.cause).toBe(boom);
  });

  test("fails without Instances", async () => {
    const err = await rejection(
      getInstanceProviderID(
        legacyCloud((c) => (c.disableInstances = true)),
        ctx(),
        "n1",
      ),
    );
    expect(err.message).toBe("failed to get instances from cloud provider");
  });
});

describe("getInstanceMetadata with legacy Instances", () => {
  test("looks everything up by the node's provider ID, zone included", async () => {
    const cloud = legacyCloud((c) => {
      c.instanceTypes = { "fake://i-1": "big" };
      c.zone = { failureDomain: "z1", region: "r1" };
    });
    const md = await getInstanceMetadata(cloud, ctx(), node("n1", providerID("fake://i-1")));
    expect(md).toEqual({
      providerID: "fake://i-1",
      instanceType: "big",
      nodeAddresses: cloudAddresses,
      zone: "z1",
      region: "r1",
    });
    expect(cloud.callNames()).toEqual([
      "node-addresses-by-provider-id",
      "instance-type-by-provider-id",
      "get-zone-by-provider-id",
    ]);
    expect(cloud.calls.map((c) => c.args[1])).toEqual(["fake://i-1", "fake://i-1", "fake://i-1"]);
  });

  test("builds the provider ID from instanceID when the node has none", async () => {
    const cloud = legacyCloud((c) => (c.extID = { n1: "i-1" }));
    const md = await getInstanceMetadata(cloud, ctx(), node("n1"));
    expect(md?.providerID).toBe("fake://i-1");
    expect(cloud.callNames()[0]).toBe("instance-id");
  });

  test.each([
    ["thrown as such", new NotImplementedError()],
    ["wrapped", wrapError("cloud says", new NotImplementedError())],
  ])("continues with an empty provider ID when instanceID is not implemented (%s)", async (_, e) => {
    const warnings: string[] = [];
    const cloud = legacyCloud((c) => (c.extIDErr = { n1: e }));
    const md = await getInstanceMetadata(cloud, ctx(), node("n1"), (w) => warnings.push(w));
    expect(md?.providerID).toBe("");
    expect(warnings).toHaveLength(1);
    expect(cloud.calls[1]).toMatchObject({ name: "node-addresses-by-provider-id", args: [expect.anything(), ""] });
  });

  test("stops on InstanceNotFound from instanceID, unchanged", async () => {
    const e = new InstanceNotFoundError();
    const err = await rejection(
      getInstanceMetadata(
        legacyCloud((c) => (c.extIDErr = { n1: e })),
        ctx(),
        node("n1"),
      ),
    );
    expect(err).toBe(e);
  });

  test("stops on any other instanceID error", async () => {
    const cloud = legacyCloud((c) => (c.extIDErr = { n1: new Error("boom") }));
    const err = await rejection(getInstanceMetadata(cloud, ctx(), node("n1")));
    expect(err.message).toBe("failed to get instance ID from cloud provider: boom");
  });

  test("fails without Instances (and without InstancesV2)", async () => {
    const cloud = legacyCloud((c) => (c.disableInstances = true));
    const err = await rejection(getInstanceMetadata(cloud, ctx(), node("n1", providerID("p"))));
    expect(err.message).toBe("failed to get instances from cloud provider");
  });

  test("falls back to lookups by node name", async () => {
    const cloud = legacyCloud((c) => {
      c.instanceTypes = { n1: "small" };
      c.zone = { failureDomain: "z1", region: "r1" };
      c.override("nodeAddressesByProviderID", async () => Promise.reject(new Error("e1")));
      c.override("instanceTypeByProviderID", async () => Promise.reject(new Error("e1")));
      c.override("getZoneByProviderID", async () => Promise.reject(new Error("e1")));
    });
    const md = await getInstanceMetadata(cloud, ctx(), node("n1", providerID("fake://i-1")));
    expect(md).toMatchObject({ instanceType: "small", nodeAddresses: cloudAddresses, zone: "z1", region: "r1" });
    expect(cloud.callNames()).toEqual([
      "node-addresses-by-provider-id",
      "node-addresses",
      "instance-type-by-provider-id",
      "instance-type",
      "get-zone-by-provider-id",
      "get-zone-by-node-name",
    ]);
  });

  test.each([
    {
      name: "addresses",
      methods: ["nodeAddressesByProviderID", "nodeAddresses"] as const,
      message: "error fetching node by provider ID: e1, and error by node name: e2",
    },
    {
      name: "instance type",
      methods: ["instanceTypeByProviderID", "instanceType"] as const,
      message: "InstanceType: Error fetching by providerID: e1 Error fetching by NodeName: e2",
    },
    {
      name: "zone",
      methods: ["getZoneByProviderID", "getZoneByNodeName"] as const,
      message:
        "failed to get zone from cloud provider: Zone: Error fetching by providerID: e1 Error fetching by NodeName: e2",
    },
  ])("combines both errors when the $name lookups fail", async ({ methods, message }) => {
    const cloud = legacyCloud((c) => {
      // The methods differ in return type; each fails here, so the shared failing function fits all of them.
      c.override(methods[0], (async () => Promise.reject(new Error("e1"))) as never);
      c.override(methods[1], (async () => Promise.reject(new Error("e2"))) as never);
    });
    const err = await rejection(getInstanceMetadata(cloud, ctx(), node("n1", providerID("fake://i-1"))));
    expect(err).toBeInstanceOf(FallbackLookupError);
    expect(err.message).toBe(message);
  });

  test("skips zones when the provider has none", async () => {
    const cloud = legacyCloud((c) => (c.disableZones = true));
    const md = await getInstanceMetadata(cloud, ctx(), node("n1", providerID("p")));
    expect(md).toMatchObject({ zone: "", region: "" });
    expect(cloud.callNames()).not.toContain("get-zone-by-provider-id");
  });

  test("copies only the non-empty zone fields", async () => {
    const cloud = legacyCloud((c) => (c.zone = { failureDomain: "", region: "r1" }));
    expect(await getInstanceMetadata(cloud, ctx(), node("n1", providerID("p")))).toMatchObject({
      zone: "",
      region: "r1",
    });
  });
});

describe("cloudNodeUnsupported", () => {
  test.each([
    [
      "InstancesV2 only",
      (c: FakeCloud) => {
        c.disableInstances = true;
        c.enableInstancesV2 = true;
      },
      undefined,
    ],
    ["Instances only", () => {}, undefined],
    [
      "neither",
      (c: FakeCloud) => {
        c.disableInstances = true;
      },
      "cloud provider does not support instances",
    ],
  ])("with %s", (_, tweak, want) => {
    expect(cloudNodeUnsupported(legacyCloud(tweak))).toBe(want);
  });
});
