import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { Taints } from "../../kube/well-known.ts";
import { InstanceNotFoundError, NotImplementedError } from "../../providers/errors.ts";
import { FakeCloud } from "../../providers/fake/fake-cloud.ts";
import { ctx, node, providerID, ready, taint } from "../node/node-fixtures.ts";
import { applyModifiers } from "../node/plan.ts";
import { type CloudProbe, probeNodes } from "./cloud.ts";
import {
  deletingNodeFailedEvent,
  type LifecycleDecision,
  planAfterProbe,
  planReadiness,
  readyStatus,
  SHUTDOWN_TAINT,
} from "./plan.ts";

const shutdownTaint = taint(Taints.shutdown, "NoSchedule");

describe("readyStatus", () => {
  test.each([
    [node("n", ready(true)), "True"],
    [node("n", ready(false)), "False"],
    [node("n", ready("Unknown")), "Unknown"],
    [node("n"), "Unknown"],
  ])("reads the Ready condition (%#)", (n, want) => {
    expect(readyStatus(n)).toBe(want);
  });
});

describe("planReadiness", () => {
  test("removes the shutdown taint from a Ready node", () => {
    const n = node("n1", ready(true), taint("other"), shutdownTaint);
    const decision = planReadiness(n);
    expect(decision.kind).toBe("removeShutdownTaint");
    if (decision.kind !== "removeShutdownTaint") return;
    expect(applyModifiers(n, [decision.modify]).node.spec?.taints).toEqual([{ key: "other", effect: "NoSchedule" }]);
  });

  test.each([
    ["without taints", node("n1", ready(true))],
    [
      "with the shutdown key under another effect (match is key + effect)",
      node("n1", ready(true), taint(Taints.shutdown, "NoExecute")),
    ],
  ])("makes no write for a Ready node %s", (_, n) => {
    expect(planReadiness(n).kind).toBe("none");
  });

  test.each([
    ["False", node("n1", ready(false))],
    ["Unknown", node("n1", ready("Unknown"))],
    ["absent", node("n1")],
  ])("asks the cloud about a node whose Ready is %s", (_, n) => {
    expect(planReadiness(n)).toEqual({ kind: "probe" });
  });
});

describe("planAfterProbe", () => {
  const notReady = node("n1", ready(false));

  test("deletes a node whose instance is gone, with upstream's event", () => {
    expect(planAfterProbe(notReady, { kind: "gone" })).toEqual({
      kind: "delete",
      event: {
        type: "Normal",
        reason: "DeletingNode",
        message: "Deleting node n1 because it does not exist in the cloud provider",
        involvedObject: { apiVersion: "v1", kind: "Node", name: "n1", uid: "uid-n1", namespace: "" },
      },
    });
  });

  test("deletes regardless of existing taints", () => {
    expect(planAfterProbe(node("n1", ready(false), shutdownTaint), { kind: "gone" }).kind).toBe("delete");
  });

  test("words the failed-deletion event as upstream does", () => {
    expect(deletingNodeFailedEvent(notReady, new Error("forbidden"))).toEqual({
      type: "Warning",
      reason: "DeletingNodeFailed",
      message: "Failed deleting node n1: forbidden",
      involvedObject: { apiVersion: "v1", kind: "Node", name: "n1", uid: "uid-n1", namespace: "" },
    });
  });

  test("adds the shutdown taint (NoSchedule, no value, no timeAdded) to a shut-down instance's node", () => {
    const decision = planAfterProbe(notReady, { kind: "present", shutdown: true });
    expect(decision.kind).toBe("addShutdownTaint");
    if (decision.kind !== "addShutdownTaint") return;
    expect(decision.taint).toEqual({ key: Taints.shutdown, effect: "NoSchedule" });
    expect(applyModifiers(notReady, [decision.modify]).node.spec?.taints).toEqual([SHUTDOWN_TAINT]);
  });

  test("makes no write when the identical shutdown taint is there", () => {
    expect(planAfterProbe(node("n1", ready(false), shutdownTaint), { kind: "present", shutdown: true }).kind).toBe(
      "none",
    );
  });

  test("replaces a matching shutdown taint that differs, in place", () => {
    const n = node("n1", ready(false), taint(Taints.shutdown, "NoSchedule", "x"), taint("other"));
    const decision = planAfterProbe(n, { kind: "present", shutdown: true });
    if (decision.kind !== "addShutdownTaint") throw new Error(decision.kind);
    expect(applyModifiers(n, [decision.modify]).node.spec?.taints).toEqual([
      SHUTDOWN_TAINT,
      { key: "other", effect: "NoSchedule" },
    ]);
  });

  test("leaves a running instance's node alone, keeping any shutdown taint until Ready", () => {
    expect(planAfterProbe(node("n1", ready(false), shutdownTaint), { kind: "present", shutdown: false }).kind).toBe(
      "none",
    );
  });

  test.each<CloudProbe>([
    { kind: "existsFailed", error: new Error("e") },
    { kind: "shutdownFailed", error: new Error("e") },
  ])("does nothing but report the error when $kind", (probe) => {
    const decision = planAfterProbe(notReady, probe);
    expect(decision).toMatchObject({ kind: "none", error: (probe as { error: unknown }).error });
  });

  test("never deletes a Ready node, whatever the cloud says", () => {
    expect(planAfterProbe(node("n1", ready(true)), { kind: "gone" }).kind).toBe("none");
  });
});

/** MonitorNodes over the fake cloud: every node, sequentially, as the runner does it. */
async function monitor(cloud: FakeCloud, nodes: Node[]): Promise<LifecycleDecision[]> {
  const first = nodes.map(planReadiness);
  const toProbe = nodes.filter((_, i) => first[i]?.kind === "probe");
  const probes = await probeNodes(cloud, ctx(), toProbe);
  return nodes.map((n, i) => {
    const d = first[i]!;
    return d.kind === "probe" ? planAfterProbe(n, probes.get(n.metadata?.name ?? "")!) : d;
  });
}

function fake(tweak: (c: FakeCloud) => void): FakeCloud {
  const c = new FakeCloud();
  tweak(c);
  return c;
}

describe("MonitorNodes over the fake cloud", () => {
  test.each([
    {
      name: "V2: a NotReady node whose instance is gone is deleted",
      cloud: fake((c) => (c.enableInstancesV2 = true)),
      node: node("n1", ready(false)),
      want: "delete",
      calls: ["instance-exists"],
    },
    {
      name: "V2: a NotReady node whose instance exists and runs is left alone",
      cloud: fake((c) => {
        c.enableInstancesV2 = true;
        c.existsByProviderID = true;
      }),
      node: node("n1", ready(false)),
      want: "none",
      calls: ["instance-exists", "instance-shutdown"],
    },
    {
      name: "V2: a NotReady node whose instance is shut down gets the taint",
      cloud: fake((c) => {
        c.enableInstancesV2 = true;
        c.existsByProviderID = true;
        c.nodeShutdown = true;
      }),
      node: node("n1", ready("Unknown")),
      want: "addShutdownTaint",
      calls: ["instance-exists", "instance-shutdown"],
    },
    {
      name: "V2: an existence error leaves the node alone",
      cloud: fake((c) => {
        c.enableInstancesV2 = true;
        c.errByProviderID = new Error("boom");
      }),
      node: node("n1", ready(false)),
      want: "none",
      calls: ["instance-exists"],
    },
    {
      name: "a Ready node is never checked, even if its instance is gone",
      cloud: fake((c) => (c.enableInstancesV2 = true)),
      node: node("n1", ready(true)),
      want: "none",
      calls: [],
    },
    {
      name: "a Ready node loses its shutdown taint, without a cloud call",
      cloud: fake((c) => (c.enableInstancesV2 = true)),
      node: node("n1", ready(true), shutdownTaint),
      want: "removeShutdownTaint",
      calls: [],
    },
    {
      name: "V1: InstanceNotFound from instanceID deletes the node",
      cloud: fake((c) => (c.extIDErr = { n1: new InstanceNotFoundError() })),
      node: node("n1", ready(false)),
      want: "delete",
      calls: ["instance-id"],
    },
    {
      name: "V1: an instance that does not exist by provider ID is deleted",
      cloud: fake(() => {}),
      node: node("n1", ready(false), providerID("fake://i-1")),
      want: "delete",
      calls: ["instance-exists-by-provider-id"],
    },
    {
      name: "V1: NotImplemented shutdown reads as not shut down",
      cloud: fake((c) => {
        c.existsByProviderID = true;
        c.errShutdownByProviderID = new NotImplementedError();
      }),
      node: node("n1", ready(false), providerID("fake://i-1")),
      want: "none",
      calls: ["instance-exists-by-provider-id", "instance-shutdown-by-provider-id"],
    },
    {
      name: "V1: a shut-down instance gets the taint",
      cloud: fake((c) => {
        c.existsByProviderID = true;
        c.nodeShutdown = true;
      }),
      node: node("n1", ready(false), providerID("fake://i-1")),
      want: "addShutdownTaint",
      calls: ["instance-exists-by-provider-id", "instance-shutdown-by-provider-id"],
    },
    {
      name: "V1: NotImplemented instanceID leaves the node alone",
      cloud: fake((c) => (c.extIDErr = { n1: new NotImplementedError() })),
      node: node("n1", ready(false)),
      want: "none",
      calls: ["instance-id"],
    },
    {
      name: "no instances capability: the node is left alone",
      cloud: fake((c) => (c.disableInstances = true)),
      node: node("n1", ready(false)),
      want: "none",
      calls: [],
    },
  ])("$name", async ({ cloud, node: n, want, calls }) => {
    const [decision] = await monitor(cloud, [n]);
    expect(decision?.kind).toBe(want as LifecycleDecision["kind"]);
    expect(cloud.callNames()).toEqual([...calls]);
  });

  test("bulk: a thousand quiet nodes cost one cloud call and no writes", async () => {
    const cloud = fake((c) => {
      c.enableInstancesV2 = true;
      c.enableBulk = true;
      c.existsByProviderID = true;
    });
    const nodes = Array.from({ length: 1000 }, (_, i) => node(`n${i}`, ready(i % 2 === 0 ? false : "Unknown")));
    const decisions = await monitor(cloud, nodes);
    expect(decisions.every((d) => d.kind === "none")).toBe(true);
    expect(cloud.callNames()).toEqual(["instance-metadata-bulk"]);
  });
});
