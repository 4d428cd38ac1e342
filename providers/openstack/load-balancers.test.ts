/**
 * Octavia load balancers end to end over the emulator: made with OCCM's names, its floating IP in the status,
 * members following the Nodes, deleted with the floating IP it made (unless kept), internal ones without one.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rejection } from "../testing.ts";
import { A, ctx, LB_NAME, type LBWorld, service, startLB, UID, writes } from "./lb/testing.ts";

let w: LBWorld;
afterEach(() => w?.stop());

const fips = () => [...w.h.emulator.world.octavia.floatingIPs.values()];

describe("making and keeping a load balancer", () => {
  test("one fully populated create with OCCM's names, tagged with the Service's UID, its floating IP in the status", async () => {
    w = await startLB();
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const lb = w.only();
    expect(lb.name).toBe(LB_NAME);
    expect(lb.tags).toEqual([LB_NAME, `kube_service_uid=${UID}`]);
    expect(lb.description).toBe("Kubernetes external service default/web from cluster kubernetes");
    expect(lb.listeners.map((l) => [l.name, l.protocol, l.protocolPort])).toEqual([
      [`listener_0_${LB_NAME}`, "TCP", 80],
    ]);
    expect(lb.pools[0]?.members.map((m) => [m.name, m.protocolPort])).toEqual([
      ["node-1", 30080],
      ["node-2", 30080],
    ]);
    expect(w.h.emulator.calls.count("POST /load-balancer/v2/lbaas/loadbalancers")).toBe(1);
    const [fip] = fips();
    expect(fip?.portID).toBe(lb.vipPortID);
    expect(status).toEqual({ ingress: [{ ip: fip?.address ?? "" }] });
    expect(await w.lb.getLoadBalancer(ctx, "kubernetes", service())).toEqual(status);
  });

  test("a second ensure of a converged load balancer writes nothing", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    w.h.emulator.calls.reset();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(writes(w.h)).toEqual([]);
  });

  test("members follow the Nodes on update, in one batch call (OCCM #2962)", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const third = w.addNode("node-3");
    await w.lb.updateLoadBalancer(ctx, "kubernetes", service(), [w.nodes[1] as never, third]);
    expect(w.only().pools[0]?.members.map((m) => m.name)).toEqual(["node-2", "node-3"]);
  });

  test("a port added and one removed: a listener made and one deleted, the rest kept", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const kept = w.only().listeners[0]?.id;
    const ports = [
      { name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 },
      { name: "https", protocol: "TCP", port: 443, targetPort: 8443, nodePort: 30443 },
    ];
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({}, { ports }), w.nodes);
    expect(w.only().listeners.map((l) => l.protocolPort)).toEqual([80, 443]);
    expect(w.only().listeners[0]?.id).toBe(kept);
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({}, { ports: ports.slice(1) }), w.nodes);
    expect(w.only().listeners.map((l) => l.protocolPort)).toEqual([443]);
    expect(w.only().pools).toHaveLength(1);
  });

  test("an internal load balancer has no floating IP; its status is the VIP", async () => {
    w = await startLB();
    const status = await w.lb.ensureLoadBalancer(
      ctx,
      "kubernetes",
      service({ "service.beta.kubernetes.io/openstack-internal-load-balancer": "true" }),
      w.nodes,
    );
    expect(fips()).toEqual([]);
    expect(status.ingress?.[0]?.ip).toBe(w.only().vipAddress);
  });

  test("without a floating network it is internal, with OCCM's Warning saying so", async () => {
    w = await startLB();
    const status = await w.lb.ensureLoadBalancer(
      ctx,
      "kubernetes",
      service({ [`${A}floating-network-id`]: "" }),
      w.nodes,
    );
    expect(fips()).toEqual([]);
    expect(status.ingress?.[0]?.ip).toBe(w.only().vipAddress);
    expect(w.warnings.some((m) => m.includes("no floating network is configured"))).toBe(true);
  });

  test("the PROXY protocol: PROXYV2 pools and ipMode Proxy in the status", async () => {
    w = await startLB();
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [`${A}proxy-protocol`]: "v2" }), w.nodes);
    expect(w.only().pools[0]?.protocol).toBe("PROXYV2");
    expect(status.ingress?.[0]?.ipMode).toBe("Proxy");
  });

  test("an Octavia that refuses a fully populated create gets the load balancer step by step (OCCM #1441)", async () => {
    w = await startLB();
    w.h.emulator.faults.set({
      latencyMs: 0,
      errorRate: 0,
      failNext: [{ method: "POST", pathPrefix: "/load-balancer/v2/lbaas/loadbalancers", status: 400, count: 1 }],
    });
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.only().listeners).toHaveLength(1);
    expect(w.only().pools[0]?.members).toHaveLength(2);
  });
});

describe("settings of [LoadBalancer]", () => {
  test("provider-requires-serial-api-calls: a bare create, then each listener, pool and member set", async () => {
    w = await startLB("provider-requires-serial-api-calls = true");
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(w.h.emulator.calls.count("POST /load-balancer/v2/lbaas/listeners")).toBe(1);
    expect(w.h.emulator.calls.count("POST /load-balancer/v2/lbaas/pools")).toBe(1);
    expect(w.h.emulator.calls.count("PUT /load-balancer/v2/lbaas/pools/:id/members")).toBe(1);
    expect(w.only().pools[0]?.members).toHaveLength(2);
  });

  test("cascade-delete = false: pools and listeners deleted one by one, then the load balancer", async () => {
    w = await startLB("cascade-delete = false");
    const ports = [
      { name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 },
      { name: "https", protocol: "TCP", port: 443, targetPort: 8443, nodePort: 30443 },
    ];
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({}, { ports }), w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service({}, { ports }));
    expect(w.h.emulator.world.octavia.loadBalancers.size).toBe(0);
    expect(w.h.emulator.calls.count("DELETE /load-balancer/v2/lbaas/pools/:id")).toBe(2);
    expect(w.h.emulator.calls.count("DELETE /load-balancer/v2/lbaas/listeners/:id")).toBe(2);
  });

  test("enable-ingress-hostname with the PROXY protocol: the status is <address>.nip.io, as OCCM's", async () => {
    w = await startLB("enable-ingress-hostname = true");
    const proxied = service({ [`${A}proxy-protocol`]: "true" });
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", proxied, w.nodes);
    expect(status).toEqual({ ingress: [{ hostname: `${fips()[0]?.address}.nip.io` }] });
    expect(await w.lb.getLoadBalancer(ctx, "kubernetes", proxied)).toEqual(status);
  });
});

describe("the floating IP's subnet", () => {
  test("floating-subnet picks the floating network's subnet by name", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [`${A}floating-subnet`]: "public-*" }), w.nodes);
    expect(fips()).toHaveLength(1);
  });

  test("a pattern no subnet matches fails naming the pattern and the network, and makes no floating IP", async () => {
    w = await startLB();
    const err = await rejection(() =>
      w.lb.ensureLoadBalancer(ctx, "kubernetes", service({ [`${A}floating-subnet-tags`]: "&gold" }), w.nodes),
    );
    expect(err.message).toContain(`no subnet of floating network ${w.floatingNetwork} matches tags &gold`);
    expect(fips()).toEqual([]);
  });
});

describe("deleting", () => {
  test("deletes the load balancer and the floating IP it made", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(w.h.emulator.world.octavia.loadBalancers.size).toBe(0);
    expect(fips()).toEqual([]);
    expect(await w.lb.getLoadBalancer(ctx, "kubernetes", service())).toBeUndefined();
  });

  test("keep-floatingip keeps the floating IP, detached, and the next load balancer takes it back", async () => {
    w = await startLB();
    const kept = service({ [`${A}keep-floatingip`]: "true" });
    const first = await w.lb.ensureLoadBalancer(ctx, "kubernetes", kept, w.nodes);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", kept);
    expect(fips().map((f) => f.portID)).toEqual([null]);
    const again = await w.lb.ensureLoadBalancer(ctx, "kubernetes", kept, w.nodes);
    expect(again).toEqual(first);
    expect(fips()).toHaveLength(1);
  });

  test("a floating IP the user made is detached, never deleted", async () => {
    w = await startLB();
    await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    const fip = fips()[0];
    if (fip) fip.description = "reserved by hand";
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(fips().map((f) => [f.description, f.portID])).toEqual([["reserved by hand", null]]);
  });
});
