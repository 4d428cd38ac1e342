import { describe, expect, test } from "bun:test";
import { ImplementedElsewhereError, RetryError } from "../../providers/errors.ts";
import {
  chooseSyncPath,
  classifySyncResult,
  enqueueOnAdd,
  enqueueOnNodeUpdate,
  enqueueOnUpdate,
  loggableNodeNames,
  planNodeSync,
  ServiceEvents,
  ServiceSyncError,
  SyncErrors,
  serviceKey,
  splitKey,
  updatedHostsEvent,
} from "./plan.ts";
import {
  autoscaler,
  cleanup,
  deleting,
  excludeLabel,
  finalizers,
  label,
  lbClass,
  names,
  node,
  providerID,
  ready,
  service,
  taint,
  type,
} from "./test-fixtures.ts";

describe("keys", () => {
  test("builds and splits namespace/name keys like client-go", () => {
    expect(serviceKey(service("web"))).toBe("default/web");
    expect(serviceKey({ metadata: { name: "x" } })).toBe("x");
    expect(splitKey("default/web")).toEqual({ namespace: "default", name: "web" });
    expect(splitKey("web")).toEqual({ namespace: "", name: "web" });
    expect(() => splitKey("a/b/c")).toThrow('unexpected key format: "a/b/c"');
  });
});

describe("chooseSyncPath", () => {
  test.each([
    ["a LoadBalancer", service("s"), "ensure"],
    ["a LoadBalancer holding the finalizer", service("s", finalizers(cleanup)), "ensure"],
    ["a deleted LoadBalancer holding the finalizer", service("s", finalizers(cleanup), deleting()), "delete"],
    ["a deleted LoadBalancer without finalizer", service("s", deleting()), "ensure"],
    ["a ClusterIP Service", service("s", type("ClusterIP")), "delete"],
    ["a LoadBalancer that gained a class", service("s", finalizers(cleanup), lbClass("x")), "delete"],
  ])("%s → %s", (_name, svc, op) => {
    expect(chooseSyncPath(svc).op as string).toBe(op);
  });

  test("says why it deletes", () => {
    expect(chooseSyncPath(service("s", finalizers(cleanup), deleting()))).toEqual({
      op: "delete",
      reason: "the Service is being deleted",
    });
    expect(chooseSyncPath(service("s", lbClass("x")))).toEqual({
      op: "delete",
      reason: 'spec.loadBalancerClass is set ("x")',
    });
  });
});

describe("informer handlers", () => {
  test.each([
    ["a LoadBalancer", service("s"), "wants a load balancer"],
    ["a ClusterIP Service", service("s", type("ClusterIP")), undefined],
    [
      "a Service to clean up",
      service("s", type("ClusterIP"), finalizers(cleanup)),
      'the Service holds the finalizer but its type is "ClusterIP"',
    ],
  ])("an added %s enqueues: %p", (_name, svc, want) => {
    expect(enqueueOnAdd(svc)).toBe(want);
  });

  test("an update enqueues on a relevant change or when cleanup is needed, not on a resync", () => {
    const svc = service("s");
    expect(enqueueOnUpdate(svc, svc)).toBeUndefined();
    expect(enqueueOnUpdate(svc, service("s", type("ClusterIP")))).toBe(
      "wants a load balancer changed from true to false",
    );
    const held = service("s", finalizers(cleanup));
    expect(enqueueOnUpdate(held, service("s", finalizers(cleanup), deleting()))).toBe("the Service is being deleted");
    expect(enqueueOnNodeUpdate(node("n"), node("n", ready(false)))).toBeUndefined();
    expect(enqueueOnNodeUpdate(node("n"), node("n", providerID("x")))).toBe("providerID changed");
  });
});

describe("events", () => {
  test("carry upstream's reasons, types and messages", () => {
    const err = new Error("boom");
    expect([
      ServiceEvents.ensuring,
      ServiceEvents.ensured,
      ServiceEvents.deleting,
      ServiceEvents.deleted,
      ServiceEvents.noNodes,
      ServiceEvents.updated,
      ServiceEvents.syncFailed(err),
      ServiceEvents.deleteFailed(err),
    ]).toEqual([
      { type: "Normal", reason: "EnsuringLoadBalancer", message: "Ensuring load balancer" },
      { type: "Normal", reason: "EnsuredLoadBalancer", message: "Ensured load balancer" },
      { type: "Normal", reason: "DeletingLoadBalancer", message: "Deleting load balancer" },
      { type: "Normal", reason: "DeletedLoadBalancer", message: "Deleted load balancer" },
      { type: "Warning", reason: "UnAvailableLoadBalancer", message: "There are no available nodes for LoadBalancer" },
      { type: "Normal", reason: "UpdatedLoadBalancer", message: "Updated load balancer with new hosts" },
      { type: "Warning", reason: "SyncLoadBalancerFailed", message: "Error syncing load balancer: boom" },
      { type: "Warning", reason: "DeleteLoadBalancerFailed", message: "Error deleting load balancer: boom" },
    ]);
    expect(updatedHostsEvent([])).toBe(ServiceEvents.noNodes);
    expect(updatedHostsEvent([node("a")])).toBe(ServiceEvents.updated);
  });

  test("UpdateLoadBalancerFailed lists the hosts sorted", () => {
    expect(ServiceEvents.updateFailed([node("b"), node("a")], new Error("boom"))).toEqual({
      type: "Warning",
      reason: "UpdateLoadBalancerFailed",
      message:
        "Error updating load balancer with new hosts [a b] [node names limited, total number of nodes: 2], error: boom",
    });
  });

  test("limits the names to the first 20 nodes (sorted, unique) and counts the rest", () => {
    const nodes = Array.from({ length: 23 }, (_, i) => node(`n${String(22 - i).padStart(2, "0")}`));
    const got = loggableNodeNames(nodes);
    expect(got).toHaveLength(21);
    expect(got[0]).toBe("n03");
    expect(got[19]).toBe("n22");
    expect(got[20]).toBe("<3 more>");
    expect(loggableNodeNames([node("b"), node("a"), node("b")])).toEqual(["a", "b"]);
    expect(loggableNodeNames(Array.from({ length: 20 }, (_, i) => node(`x${i}`)))).toHaveLength(20);
  });
});

describe("errors and the worker's reading of them", () => {
  const retry = new RetryError("still provisioning", 15_000);

  test.each(
    (
      [
        [SyncErrors.checkExists(new Error("e")), "failed to check if load balancer exists before cleanup: e"],
        [SyncErrors.delete(new Error("e")), "failed to delete load balancer: e"],
        [SyncErrors.removeFinalizer(new Error("e")), "failed to remove load balancer cleanup finalizer: e"],
        [SyncErrors.addFinalizer(new Error("e")), "failed to add load balancer cleanup finalizer: e"],
        [SyncErrors.ensure(new Error("e")), "failed to ensure load balancer: e"],
        [SyncErrors.updateStatus(new Error("e")), "failed to update load balancer status: e"],
        [SyncErrors.nilStatus(), "service status returned by EnsureLoadBalancer is nil"],
      ] as [Error, string][]
    ).map(([e, m]) => [m, e] as const),
  )("words the step as %p", (message, err) => {
    expect(err.message).toBe(message);
  });

  test.each([
    ["success", undefined, { kind: "success" }],
    ["a RetryError", retry, { kind: "retryAfter", delayMs: 15_000 }],
    ["a RetryError wrapped by the ensure step", SyncErrors.ensure(retry), { kind: "retryAfter", delayMs: 15_000 }],
    [
      "a RetryError deep in the cause chain",
      SyncErrors.ensure(new Error("x", { cause: retry })),
      { kind: "retryAfter", delayMs: 15_000 },
    ],
    ["a RetryError behind a %v step (hidden, as upstream)", SyncErrors.checkExists(retry), { kind: "rateLimited" }],
    ["a RetryError behind the status write", SyncErrors.updateStatus(retry), { kind: "rateLimited" }],
    ["any other error", new Error("boom"), { kind: "rateLimited" }],
  ])("%s", (_name, err, want) => {
    expect(classifySyncResult(err)).toMatchObject(want);
  });

  test("keeps the underlying error for logs even where the chain is hidden", () => {
    const err = SyncErrors.delete(new ImplementedElsewhereError());
    expect(err).toBeInstanceOf(ServiceSyncError);
    expect(err.cause).toBeUndefined();
    expect(err.underlying).toBeInstanceOf(ImplementedElsewhereError);
    expect(SyncErrors.ensure(retry).cause).toBe(retry);
  });
});

describe("planNodeSync", () => {
  const svc = service("s");

  test.each([
    ["no cached Service", undefined, [node("a")], [], "skip"],
    ["a Service that no longer wants a load balancer", service("s", type("ClusterIP")), [node("a")], [], "skip"],
    ["the same stable set", svc, [node("a"), node("b")], [node("b"), node("a")], "none"],
    ["a node added", svc, [node("a"), node("b")], [node("a")], "update"],
    ["a node removed", svc, [node("a")], [node("a"), node("b")], "update"],
    ["a providerID changed", svc, [node("a", providerID("x"))], [node("a")], "update"],
    ["only readiness changed", svc, [node("a", ready(false))], [node("a")], "none"],
    ["a node excluded now", svc, [node("a"), node("b", label(excludeLabel, "true"))], [node("a"), node("b")], "update"],
    [
      "a node already tainted when last synced",
      svc,
      [node("a"), node("b", taint(autoscaler))],
      [node("a"), node("b", taint(autoscaler))],
      "none",
    ],
  ])("%s → %s", (_name, s, all, last, action) => {
    expect(planNodeSync(s, all, last).action as string).toBe(action);
  });

  test("hands back the new stable set to record as last synced", () => {
    const plan = planNodeSync(svc, [node("a"), node("b", taint(autoscaler)), node("c", ready(false))], []);
    expect(plan.action).toBe("update");
    expect(plan.action !== "skip" && names(plan.hosts)).toEqual(["a", "c"]);
  });
});
