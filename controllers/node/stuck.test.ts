import { describe, expect, test } from "bun:test";
import { InstanceNotFoundError, RetryError } from "../../providers/errors.ts";
import type { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { fetchInitializationMetadata } from "./metadata.ts";
import { addr, ctx, fakeCloud, node, providedNodeIP, providerID, uninitialized } from "./node-fixtures.ts";
import { planInitialization } from "./plan.ts";
import { classifyStuck, StuckReasons } from "./stuck.ts";

async function syncError(cloud: FakeCloud, n = node("n1", uninitialized)): Promise<unknown> {
  try {
    const md = await fetchInitializationMetadata(cloud, ctx(), n);
    const plan = planInitialization(n, md);
    return plan.kind === "error" ? plan.error : undefined;
  } catch (err) {
    return err;
  }
}

describe("classifyStuck", () => {
  test("names a node with no instance by that name (legacy instanceID)", async () => {
    const err = await syncError(fakeCloud((c) => (c.extIDErr = { n1: new InstanceNotFoundError() })));
    const event = classifyStuck(node("n1"), { error: err });
    expect(event).toMatchObject({ type: "Warning", reason: StuckReasons.instanceNotFound });
    expect(event?.message).toStartWith("Node n1 stays uninitialized: the cloud provider has no instance for it");
    expect(event?.message).toContain("delete the Node");
  });

  test("names a node InstancesV2 cannot find", async () => {
    const err = await syncError(
      fakeCloud((c) => {
        c.enableInstancesV2 = true;
        c.metadataErr = new InstanceNotFoundError("no server named n1");
      }),
    );
    expect(classifyStuck(node("n1"), { error: err })?.reason).toBe(StuckReasons.instanceNotFound);
  });

  test("names a missing provider ID and says how to set one", async () => {
    const err = await syncError(fakeCloud((c) => (c.enableInstancesV2 = true)));
    const event = classifyStuck(node("n1"), { error: err });
    expect(event?.reason).toBe(StuckReasons.providerIDMissing);
    expect(event?.message).toContain("--provider-id");
  });

  test("names a provided node IP the cloud does not have, listing the cloud's addresses", async () => {
    const n = node("n1", uninitialized, providerID("p"), providedNodeIP("10.0.0.9"));
    const err = await syncError(
      fakeCloud((c) => {
        c.enableInstancesV2 = true;
        c.addresses = [addr("InternalIP", "10.0.0.1")];
      }),
      n,
    );
    const event = classifyStuck(n, { error: err });
    expect(event?.reason).toBe(StuckReasons.providedNodeIPNotInCloud);
    expect(event?.message).toBe(
      'Node n1 stays uninitialized: kubelet\'s --node-ip 10.0.0.9 (annotation alpha.kubernetes.io/provided-node-ip="10.0.0.9") ' +
        "is not an address of its cloud instance (cloud addresses: InternalIP 10.0.0.1). " +
        "Restart kubelet with --node-ip set to one of the cloud addresses, or without --node-ip.",
    );
  });

  test("names an invalid provided node IP", async () => {
    const n = node("n1", uninitialized, providerID("p"), providedNodeIP("10.0.0.1,10.0.0.2"));
    const err = await syncError(
      fakeCloud((c) => (c.enableInstancesV2 = true)),
      n,
    );
    const event = classifyStuck(n, { error: err });
    expect(event?.reason).toBe(StuckReasons.providedNodeIPInvalid);
    expect(event?.message).toContain("must contain either a single IP or a dual-stack pair of IPs");
  });

  test("names null metadata", () => {
    const event = classifyStuck(node("n1"), { nullMetadata: true });
    expect(event?.reason).toBe(StuckReasons.metadataUnavailable);
  });

  test.each([
    ["a plain error", new Error("connection reset")],
    ["a retry request", new RetryError("slow down", 1000)],
  ])("stays quiet for a transient failure: %s", (_, error) => {
    expect(classifyStuck(node("n1"), { error })).toBeUndefined();
  });
});
