import { describe, expect, test } from "bun:test";
import { FakeClock, settle } from "../../kube/testdata/fake-clock.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { CloudGateAbortedError, effectiveNodeSyncWorkers, gateProvider } from "./cloud-gate.ts";
import { ctx, node } from "./node-fixtures.ts";

describe("effectiveNodeSyncWorkers", () => {
  test.each([
    { flag: 0, limit: undefined, want: 1, why: "automatic without a declared limit: upstream's one worker" },
    { flag: 0, limit: { qps: 50, burst: 100 }, want: 32, why: "automatic, big burst: capped at 32" },
    { flag: 0, limit: { qps: 5, burst: 8 }, want: 8, why: "automatic: as many as the burst" },
    { flag: 0, limit: { qps: 5, burst: 2.7 }, want: 2, why: "fractional burst rounds down" },
    { flag: 0, limit: { qps: 0, burst: 10 }, want: 1, why: "an unusable limit is ignored" },
    { flag: 4, limit: { qps: 50, burst: 100 }, want: 4, why: "an explicit value is honoured" },
    { flag: 1, limit: { qps: 50, burst: 100 }, want: 1, why: "an explicit 1 is honoured, declared limit or not" },
  ])("$why", ({ flag, limit, want }) => {
    expect(effectiveNodeSyncWorkers(flag, limit)).toBe(want);
  });
});

function v2Cloud(): FakeCloud {
  const cloud = new FakeCloud();
  cloud.enableInstancesV2 = true;
  cloud.existsByProviderID = true;
  return cloud;
}

describe("gateProvider", () => {
  test("returns the provider itself when it declares no limit", () => {
    const cloud = v2Cloud();
    expect(gateProvider(cloud, undefined, new FakeClock(), new AbortController().signal)).toBe(cloud);
  });

  test("lets a burst through at once, then one call per 1/qps seconds", async () => {
    const cloud = v2Cloud();
    const clock = new FakeClock();
    const gated = gateProvider(cloud, { qps: 2, burst: 2 }, clock, new AbortController().signal);
    const calls = [1, 2, 3, 4].map(() => gated.instancesV2?.instanceExists(ctx(), node("n1")));
    await settle();
    expect(cloud.calls).toHaveLength(2);
    await clock.advance(500);
    expect(cloud.calls).toHaveLength(3);
    await clock.advance(500);
    expect(cloud.calls).toHaveLength(4);
    expect(await Promise.all(calls)).toEqual([true, true, true, true]);
  });

  test("keeps optional methods absent and switchable capabilities truthful", () => {
    const cloud = v2Cloud();
    const gated = gateProvider(cloud, { qps: 1, burst: 1 }, new FakeClock(), new AbortController().signal);
    expect(gated.instancesV2?.instanceMetadataBulk).toBeUndefined();
    cloud.enableBulk = true;
    expect(typeof gated.instancesV2?.instanceMetadataBulk).toBe("function");
    cloud.enableInstancesV2 = false;
    expect(gated.instancesV2).toBeUndefined();
    expect(gated.providerName).toBe("fake");
    expect(gated.loadBalancer).toBe(cloud.loadBalancer);
  });

  test("a wait cut short by the signal makes no cloud call", async () => {
    const cloud = v2Cloud();
    const abort = new AbortController();
    const gated = gateProvider(cloud, { qps: 1, burst: 1 }, new FakeClock(), abort.signal);
    await gated.instancesV2?.instanceExists(ctx(), node("n1"));
    const waiting = gated.instancesV2?.instanceExists(ctx(), node("n1"));
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(CloudGateAbortedError);
    await settle();
    expect(cloud.calls).toHaveLength(1);
  });
});
