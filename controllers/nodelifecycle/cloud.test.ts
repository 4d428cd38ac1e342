import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { BulkInstanceInfo } from "../../providers/cloud.ts";
import { InstanceNotFoundError, NotImplementedError, wrapError } from "../../providers/errors.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { ctx, fakeCloud, node, providerID, rejection } from "../node/node-fixtures.ts";
import { getProviderID, instanceExists, instanceShutdown, probeNode, probeNodes } from "./cloud.ts";

describe("getProviderID", () => {
  test("takes the node's provider ID without asking the cloud", async () => {
    const c = fakeCloud();
    expect(await getProviderID(c, ctx(), node("n1", providerID("aws://x")))).toBe("aws://x");
    expect(c.calls).toHaveLength(0);
  });

  test("asks InstancesV2 metadata (an empty answer is allowed)", async () => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.providerID = { n1: "fake://i-1" };
    });
    expect(await getProviderID(c, ctx(), node("n1"))).toBe("fake://i-1");
    expect(await getProviderID(c, ctx(), node("n2"))).toBe("");
  });

  test("reads InstancesV2's null metadata as an empty provider ID", async () => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.override("instanceMetadata", async () => null);
    });
    expect(await getProviderID(c, ctx(), node("n1"))).toBe("");
  });

  test("builds <provider>://<instanceID> on the legacy path, blank IDs included", async () => {
    expect(
      await getProviderID(
        fakeCloud((f) => (f.extID = { n1: "i-1" })),
        ctx(),
        node("n1"),
      ),
    ).toBe("fake://i-1");
    expect(await getProviderID(fakeCloud(), ctx(), node("n1"))).toBe("fake://");
  });

  test("surfaces NotImplemented from instanceID as an error", async () => {
    const e = new NotImplementedError();
    expect(
      await rejection(
        getProviderID(
          fakeCloud((f) => (f.extIDErr = { n1: e })),
          ctx(),
          node("n1"),
        ),
      ),
    ).toBe(e);
  });
});

describe("instanceExists", () => {
  test.each([true, false])("asks InstancesV2 (answer %p)", async (exists) => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.existsByProviderID = exists;
    });
    expect(await instanceExists(c, ctx(), node("n1"))).toBe(exists);
    expect(c.callNames()).toEqual(["instance-exists"]);
  });

  test("passes InstancesV2's error through", async () => {
    const e = new Error("boom");
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.errByProviderID = e;
    });
    expect(await rejection(instanceExists(c, ctx(), node("n1")))).toBe(e);
  });

  test("legacy: asks by the node's provider ID", async () => {
    const c = fakeCloud((f) => (f.existsByProviderID = true));
    expect(await instanceExists(c, ctx(), node("n1", providerID("fake://i-1")))).toBe(true);
    expect(c.calls.map((x) => [x.name, x.args[1]])).toEqual([["instance-exists-by-provider-id", "fake://i-1"]]);
  });

  test("legacy: builds the provider ID from instanceID first", async () => {
    const c = fakeCloud((f) => {
      f.extID = { n1: "i-1" };
      f.existsByProviderID = true;
    });
    expect(await instanceExists(c, ctx(), node("n1"))).toBe(true);
    expect(c.callNames()).toEqual(["instance-id", "instance-exists-by-provider-id"]);
  });

  test("legacy: InstanceNotFound from instanceID means the instance is gone (upstream quirk f.6)", async () => {
    const c = fakeCloud((f) => (f.extIDErr = { n1: new InstanceNotFoundError() }));
    expect(await instanceExists(c, ctx(), node("n1"))).toBe(false);
    expect(c.callNames()).toEqual(["instance-id"]);
  });

  test.each([
    [
      "a wrapped InstanceNotFound",
      wrapError("lookup", new InstanceNotFoundError()),
      "failed to get instance ID from cloud provider: lookup: instance not found",
    ],
    ["NotImplemented", new NotImplementedError(), "unimplemented"],
    ["any other error", new Error("boom"), "failed to get instance ID from cloud provider: boom"],
  ])("legacy: %s from instanceID is an error, not a deletion", async (_, e, message) => {
    const err = await rejection(
      instanceExists(
        fakeCloud((f) => (f.extIDErr = { n1: e })),
        ctx(),
        node("n1"),
      ),
    );
    expect(err.message).toBe(message);
  });

  test("fails without Instances and InstancesV2", async () => {
    const err = await rejection(
      instanceExists(
        fakeCloud((f) => (f.disableInstances = true)),
        ctx(),
        node("n1"),
      ),
    );
    expect(err.message).toBe("instances interface not supported in the cloud provider");
  });
});

describe("instanceShutdown", () => {
  test.each([true, false])("asks InstancesV2 (answer %p)", async (shutdown) => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.nodeShutdown = shutdown;
    });
    expect(await instanceShutdown(c, ctx(), node("n1"))).toBe(shutdown);
    expect(c.callNames()).toEqual(["instance-shutdown"]);
  });

  test("InstancesV2: NotImplemented stays an error", async () => {
    const e = new NotImplementedError();
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.errShutdownByProviderID = e;
    });
    expect(await rejection(instanceShutdown(c, ctx(), node("n1")))).toBe(e);
  });

  test("legacy: asks by provider ID", async () => {
    const c = fakeCloud((f) => (f.nodeShutdown = true));
    expect(await instanceShutdown(c, ctx(), node("n1", providerID("fake://i-1")))).toBe(true);
    expect(c.callNames()).toEqual(["instance-shutdown-by-provider-id"]);
  });

  test("legacy: NotImplemented means not shut down", async () => {
    const c = fakeCloud((f) => (f.errShutdownByProviderID = new NotImplementedError()));
    expect(await instanceShutdown(c, ctx(), node("n1", providerID("p")))).toBe(false);
  });

  test("legacy: a wrapped NotImplemented is an error", async () => {
    const c = fakeCloud((f) => (f.errShutdownByProviderID = wrapError("x", new NotImplementedError())));
    expect((await rejection(instanceShutdown(c, ctx(), node("n1", providerID("p"))))).message).toBe("x: unimplemented");
  });

  test("legacy: InstanceNotFound from instanceID means not shut down", async () => {
    const c = fakeCloud((f) => (f.extIDErr = { n1: new InstanceNotFoundError() }));
    expect(await instanceShutdown(c, ctx(), node("n1"))).toBe(false);
  });

  test("legacy: other provider-ID errors are errors", async () => {
    const c = fakeCloud((f) => (f.extIDErr = { n1: new NotImplementedError() }));
    expect((await rejection(instanceShutdown(c, ctx(), node("n1")))).message).toBe("unimplemented");
  });

  test("fails without Instances and InstancesV2", async () => {
    const err = await rejection(
      instanceShutdown(
        fakeCloud((f) => (f.disableInstances = true)),
        ctx(),
        node("n1"),
      ),
    );
    expect(err.message).toBe("cloud provider does not support instances");
  });
});

describe("probeNode", () => {
  test("does not ask about shutdown for a gone instance", async () => {
    const c = fakeCloud((f) => (f.enableInstancesV2 = true));
    expect(await probeNode(c, ctx(), node("n1"))).toEqual({ kind: "gone" });
    expect(c.callNames()).toEqual(["instance-exists"]);
  });

  test("asks existence, then shutdown", async () => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.existsByProviderID = true;
      f.nodeShutdown = true;
    });
    expect(await probeNode(c, ctx(), node("n1"))).toEqual({ kind: "present", shutdown: true });
    expect(c.callNames()).toEqual(["instance-exists", "instance-shutdown"]);
  });

  test("reports which question failed", async () => {
    const e1 = new Error("exists failed");
    const e2 = new Error("shutdown failed");
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.errByProviderID = e1;
    });
    expect(await probeNode(c, ctx(), node("n1"))).toEqual({ kind: "existsFailed", error: e1 });
    c.errByProviderID = undefined;
    c.existsByProviderID = true;
    c.errShutdownByProviderID = e2;
    expect(await probeNode(c, ctx(), node("n1"))).toEqual({ kind: "shutdownFailed", error: e2 });
  });
});

describe("probeNodes", () => {
  const nodes = ["n1", "n2", "n3"].map((n) => node(n, providerID(`fake://${n}`)));
  const info = (shutdown: boolean): BulkInstanceInfo => ({
    metadata: { providerID: "p", instanceType: "", nodeAddresses: [], zone: "", region: "" },
    shutdown,
  });

  function bulkCloud(answer: (nodes: readonly Node[]) => Map<string, BulkInstanceInfo | null>): FakeCloud {
    return fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.enableBulk = true;
      f.existsByProviderID = true;
      f.override("instanceMetadataBulk", async (_ctx, ns: readonly Node[]) => answer(ns));
    });
  }

  test("answers every node with one bulk call", async () => {
    const c = bulkCloud(
      () =>
        new Map([
          ["n1", null],
          ["n2", info(true)],
          ["n3", info(false)],
        ]),
    );
    const out = await probeNodes(c, ctx(), nodes);
    expect(c.callNames()).toEqual(["instance-metadata-bulk"]);
    expect(out).toEqual(
      new Map([
        ["n1", { kind: "gone" }],
        ["n2", { kind: "present", shutdown: true }],
        ["n3", { kind: "present", shutdown: false }],
      ]),
    );
  });

  test("probes one by one only the nodes the bulk answer misses", async () => {
    const c = bulkCloud(() => new Map([["n1", info(false)]]));
    const out = await probeNodes(c, ctx(), nodes, { concurrency: 2 });
    expect(c.callNames().filter((n) => n === "instance-metadata-bulk")).toHaveLength(1);
    expect(c.callNames().filter((n) => n === "instance-exists")).toHaveLength(2);
    expect(out.get("n2")).toEqual({ kind: "present", shutdown: false });
  });

  test("falls back to per-node probes when the bulk call is not implemented", async () => {
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.enableBulk = true;
      f.override("instanceMetadataBulk", async () => Promise.reject(new NotImplementedError()));
    });
    const out = await probeNodes(c, ctx(), nodes);
    expect([...out.values()]).toEqual([{ kind: "gone" }, { kind: "gone" }, { kind: "gone" }]);
    expect(c.callNames()).toEqual(["instance-metadata-bulk", "instance-exists", "instance-exists", "instance-exists"]);
  });

  test("deletes nothing when the bulk call fails: every node gets the error", async () => {
    const e = new Error("listing failed");
    const c = fakeCloud((f) => {
      f.enableInstancesV2 = true;
      f.enableBulk = true;
      f.metadataErr = e;
    });
    const out = await probeNodes(c, ctx(), nodes);
    expect([...out.values()]).toEqual(nodes.map(() => ({ kind: "existsFailed", error: e })));
    expect(c.callNames()).toEqual(["instance-metadata-bulk"]);
  });

  test("probes each node without the bulk capability", async () => {
    const c = fakeCloud((f) => (f.existsByProviderID = true));
    const out = await probeNodes(c, ctx(), nodes);
    expect([...out.values()].every((p) => p.kind === "present")).toBe(true);
    expect(c.callNames().filter((n) => n === "instance-exists-by-provider-id")).toHaveLength(3);
  });

  test("makes no call for no nodes", async () => {
    const c = bulkCloud(() => new Map());
    expect((await probeNodes(c, ctx(), [])).size).toBe(0);
    expect(c.calls).toHaveLength(0);
  });
});
