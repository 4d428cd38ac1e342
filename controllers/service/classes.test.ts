/**
 * The service controller under a provider's `LoadBalancer.classes`: which Services it takes, which it leaves to
 * another implementation (never touched, never cleaned up), and what happens to one whose class stops being ours.
 */
import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import type { LoadBalancerClasses } from "../../providers/cloud.ts";
import { chooseSyncPath, enqueueOnAdd, enqueueOnUpdate, planNodeSync } from "./plan.ts";
import { cleanupReason, notOurLoadBalancer, updateReason, wantsLoadBalancer } from "./predicates.ts";
import { cleanup, deleting, finalizers, ingress, lbClass, node, service, type } from "./test-fixtures.ts";
import { harnessFor, runSync } from "./test-harness.ts";

const A = "a.example/lb";
const B = "b.example/lb";
const onlyA: LoadBalancerClasses = { names: [A], classless: false };
const aAndDefault: LoadBalancerClasses = { names: [A], classless: true };
const upstream = undefined;

const classless = service("s");
const classA = service("s", lbClass(A));
const classB = service("s", lbClass(B));
const emptyClass = service("s", lbClass(""));
const notForeignB = `spec.loadBalancerClass "${B}" is not a class this manager serves ("${A}")`;
const notClassless =
  "spec.loadBalancerClass is not set, and this manager serves only Services that name one of its classes";

describe("which Services a manager with classes takes", () => {
  test.each<[string, string | undefined, Service, LoadBalancerClasses | undefined]>([
    ["a class-less LoadBalancer, no classes declared", undefined, classless, upstream],
    ["a class-less LoadBalancer, only class a", notClassless, classless, onlyA],
    ["a class-less LoadBalancer, class a and the default", undefined, classless, aAndDefault],
    ["class a, no classes declared", `spec.loadBalancerClass is set ("${A}")`, classA, upstream],
    ["class a, only class a", undefined, classA, onlyA],
    ["class a, class a and the default", undefined, classA, aAndDefault],
    ["class b, only class a", notForeignB, classB, onlyA],
    ["class b, class a and the default", notForeignB, classB, aAndDefault],
    [
      "an empty class, class a and the default",
      `spec.loadBalancerClass "" is not a class this manager serves ("${A}")`,
      emptyClass,
      aAndDefault,
    ],
    [
      "a ClusterIP Service, class a and the default",
      'type is "ClusterIP", not LoadBalancer',
      service("s", type("ClusterIP")),
      aAndDefault,
    ],
  ])("%s: %p", (_name, reason, svc, classes) => {
    expect(notOurLoadBalancer(svc, classes)).toBe(reason);
    expect(wantsLoadBalancer(svc, classes)).toBe(reason === undefined);
  });

  test("a manager that names no class but serves the default says so", () => {
    expect(notOurLoadBalancer(classB, { names: [], classless: true })).toBe(
      `spec.loadBalancerClass "${B}" is not a class this manager serves (none)`,
    );
  });
});

describe("cleanup of Services holding the finalizer", () => {
  const held = (...t: Parameters<typeof service>[1][]) => service("s", finalizers(cleanup), ...t);
  test.each<[string, boolean, Service, LoadBalancerClasses | undefined]>([
    ["a deleted class-b Service, no classes declared (upstream)", true, held(lbClass(B), deleting()), upstream],
    ["a deleted class-b Service, only class a: it is b's", false, held(lbClass(B), deleting()), onlyA],
    ["a deleted class-a Service, only class a", true, held(lbClass(A), deleting()), onlyA],
    ["a class-less ClusterIP Service, no classes declared", true, held(type("ClusterIP")), upstream],
    ["a class-less ClusterIP Service, only class a", false, held(type("ClusterIP")), onlyA],
    ["a class-less ClusterIP Service, class a and the default", true, held(type("ClusterIP")), aAndDefault],
  ])("%s: %p", (_name, want, svc, classes) => {
    expect(cleanupReason(svc, classes) !== undefined).toBe(want);
  });
});

describe("informer events under classes", () => {
  test("a Service of another class is never enqueued: not when added, changed, resynced or deleted", () => {
    const deleted = service("s", lbClass(B), finalizers(cleanup), deleting());
    expect(enqueueOnAdd(classB, onlyA)).toBeUndefined();
    expect(enqueueOnAdd(deleted, onlyA)).toBeUndefined();
    expect(enqueueOnUpdate(classB, service("s", lbClass(B), ingress({ ip: "1.2.3.4" })), onlyA)).toBeUndefined();
    expect(enqueueOnUpdate(classB, classB, onlyA)).toBeUndefined();
    expect(enqueueOnUpdate(classB, deleted, onlyA)).toBeUndefined();
  });

  test("a Service of our class is enqueued as a class-less one is without classes", () => {
    expect(enqueueOnAdd(classA, onlyA)).toBe("wants a load balancer");
    expect(enqueueOnAdd(classless, onlyA)).toBeUndefined();
    expect(enqueueOnAdd(classless, aAndDefault)).toBe("wants a load balancer");
  });

  test("a Service whose type leaves LoadBalancer (its class cleared) is enqueued by the manager that served it", () => {
    const left = service("s", type("ClusterIP"), finalizers(cleanup));
    expect(updateReason(service("s", lbClass(A), finalizers(cleanup)), left, onlyA)).toBe(
      "wants a load balancer changed from true to false",
    );
  });
});

describe("the sync path under classes", () => {
  const left = service("s", type("ClusterIP"), finalizers(cleanup));
  test.each<[string, string, Service, LoadBalancerClasses | undefined, Service | undefined]>([
    ["class a, only class a", "ensure", classA, onlyA, undefined],
    [
      "class b holding the finalizer, only class a",
      "skip",
      service("s", lbClass(B), finalizers(cleanup)),
      onlyA,
      undefined,
    ],
    [
      "class b being deleted, only class a",
      "skip",
      service("s", lbClass(B), finalizers(cleanup), deleting()),
      onlyA,
      undefined,
    ],
    ["class b, no classes declared (upstream: delete path)", "delete", classB, upstream, undefined],
    ["a type change away from class a, last synced as class a", "delete", left, onlyA, classA],
    ["a type change, never synced here", "skip", left, onlyA, undefined],
    ["a type change, last synced as class b", "skip", left, onlyA, classB],
    ["a type change, class a and the default", "delete", left, aAndDefault, undefined],
  ])("%s → %s", (_name, op, svc, classes, previous) => {
    expect(chooseSyncPath(svc, classes, previous).op as string).toBe(op);
  });

  test("says why it skips", () => {
    expect(chooseSyncPath(classB, onlyA)).toEqual({ op: "skip", reason: notForeignB });
  });

  test("a node sync skips a Service of another class and updates one of ours", () => {
    expect(planNodeSync(classB, [node("a")], [], onlyA)).toEqual({ action: "skip", reason: notForeignB });
    expect(planNodeSync(classA, [node("a")], [], onlyA)).toMatchObject({ action: "update" });
  });
});

describe("syncService under classes", () => {
  const KEY = "default/web";
  const web = (...t: Parameters<typeof service>[1][]) => service("web", ...t);

  test("a Service of another class is never touched, not even when it is deleted holding the finalizer", async () => {
    const { cloud, h } = harnessFor([web(lbClass(B), finalizers(cleanup), deleting())], [node("a")], onlyA);
    cloud.exists = true;
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.calls).toEqual([]);
    expect(h.reasons()).toEqual([]);
    expect(h.bodies()).toEqual([]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([cleanup]);
    expect(h.cache.has(KEY)).toBe(false);
  });

  test("a Service of our class gets its load balancer", async () => {
    const { cloud, h } = harnessFor([web(lbClass(A))], [node("a")], onlyA);
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual(["create", "get-zone"]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([cleanup]);
  });

  test("a Service whose type left LoadBalancer is cleaned up by the manager that served it, on a retry too", async () => {
    const { cloud, h } = harnessFor([web(lbClass(A))], [node("a")], onlyA);
    await runSync(h, KEY);
    cloud.exists = true;
    // The API server clears the class of a Service whose type leaves LoadBalancer.
    h.put(web(type("ClusterIP"), finalizers(cleanup)));
    cloud.err = new Error("cloud unavailable");
    expect(await runSync(h, KEY)).toMatchObject({ kind: "rateLimited" });
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([cleanup]);
    cloud.err = undefined;
    h.reset();
    expect(await runSync(h, KEY)).toEqual({ kind: "success" });
    expect(cloud.callNames()).toEqual(["delete"]);
    expect(h.live(KEY)?.metadata?.finalizers).toEqual([]);
    expect(h.cache.has(KEY)).toBe(false);
  });
});
