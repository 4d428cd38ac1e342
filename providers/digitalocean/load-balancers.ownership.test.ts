/**
 * Ownership by cluster, not by name: a load balancer DO CCM made (its ID annotation on the Service, or its name with
 * this cluster's tag) is adopted in place; one with the Service's name but another cluster's tag, or none, is
 * refused with a Warning and never changed or deleted; another Service's is never taken.
 */
import { describe, expect, test } from "bun:test";
import {
  A,
  CLUSTER_TAG,
  ctx,
  DEFAULT_NAME,
  doCcmLB,
  emulatorPerTest,
  type LBWorld,
  service,
  UID,
} from "./lb/testing.ts";

const e = emulatorPerTest();
const ID = "kubernetes.digitalocean.com/load-balancer-id";

/** Creates and deletes of load balancers. */
const posts = (w: LBWorld) =>
  w.h.emulator.calls
    .writes()
    .filter((c) => (c.method === "POST" || c.method === "DELETE") && c.path.includes("/load_balancers"));

describe("digitalocean load balancer ownership", () => {
  test("a DO CCM load balancer named by the Service's ID annotation is adopted in place: same ID and IP, no create", async () => {
    const w = await e.setUp();
    const made = doCcmLB(w, "legacy-name", []);
    const ip = made.ip;
    w.h.emulator.calls.reset();
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [ID]: made.id }), w.nodes);
    expect(w.only().id).toBe(made.id);
    expect(status).toEqual({ ingress: [{ ip }] });
    expect(w.only().spec.tags).toEqual([CLUSTER_TAG, `ccm-service:${UID}`]);
    expect(posts(w)).toEqual([]);
    expect(w.warnings).toEqual([]);
  });

  test("a load balancer with the Service's name and this cluster's tag (DOKS) is adopted in place", async () => {
    const w = await e.setUp();
    const made = doCcmLB(w, DEFAULT_NAME, [CLUSTER_TAG]);
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.only().id).toBe(made.id);
    expect(w.only().spec.tags).toContain(`ccm-service:${UID}`);
    expect(w.recorded.get(UID)).toBe(made.id);
  });

  test("a load balancer with the Service's name but another cluster's tag is refused with a Warning, and left alone", async () => {
    const w = await e.setUp();
    const theirs = doCcmLB(w, "shared", ["k8s:other-cluster"]);
    const before = structuredClone(theirs.spec);
    const named = service({ [`${A}name`]: "shared" });
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", named, w.nodes).catch((x: unknown) => x);
    expect(String(err)).toContain("not this cluster's tag");
    expect(w.warnings).toHaveLength(1);
    expect(w.warnings[0]).toStartWith("LoadBalancerNotOwned: load balancer");
    expect(w.warnings[0]).toContain(`kubernetes.digitalocean.com/load-balancer-id: ${theirs.id}`);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", named);
    expect(w.all()).toHaveLength(1);
    expect(w.only().spec).toEqual(before);
    expect(posts(w)).toEqual([]);
    expect(w.h.emulator.calls.writes().filter((c) => c.method === "PUT")).toEqual([]);
  });

  test("an untagged load balancer with the Service's name is refused too: a name is no proof of ownership", async () => {
    const w = await e.setUp();
    doCcmLB(w, DEFAULT_NAME, []);
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes).catch((x: unknown) => x);
    expect(String(err)).toContain("it has no tags");
    expect(w.all()).toHaveLength(1);
  });

  test("two Services of one cluster asking for one name: the second is refused, the first keeps its load balancer", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [`${A}name`]: "shared" }), w.nodes);
    const other = service({ [`${A}name`]: "shared" }, "99999999-2222-3333-4444-555555555555");
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", other, w.nodes).catch((x: unknown) => x);
    expect(String(err)).toContain("belongs to another Service");
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", other);
    expect(w.only().spec.tags).toContain(`ccm-service:${UID}`);
  });

  test("an ID annotation naming another Service's load balancer is refused", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const other = service({ [ID]: w.only().id }, "99999999-2222-3333-4444-555555555555");
    const err = await w.lb.ensureLoadBalancer(ctx, "kubernetes", other, w.nodes).catch((x: unknown) => x);
    expect(String(err)).toContain("belongs to another Service");
    expect(w.all()).toHaveLength(1);
  });

  test("an ID annotation naming a gone load balancer falls back to the tags, then creates one", async () => {
    const w = await e.setUp();
    await w.lb.ensureLoadBalancer(
      ctx,
      "kubernetes",
      service({ [ID]: "4de7ac8b-495b-4884-9a69-1050c6793cd6" }),
      w.nodes,
    );
    expect(w.all()).toHaveLength(1);
    expect(w.recorded.get(UID)).toBe(w.only().id);
  });
});
