/**
 * Whose load balancer is whose, and what `plan` says before anything is written: OCCM's own (untagged by UID) is
 * adopted in place, with its ID and floating IP; another cluster's of the same name is refused with a Warning and
 * never adopted or deleted (OCCM #1273, #2241).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rejection } from "../testing.ts";
import { ctx, LB_NAME, type LBWorld, service, startLB, writes } from "./lb/testing.ts";

let w: LBWorld;
afterEach(() => w?.stop());

/** A load balancer as OCCM leaves it: its name as tag, a listener, pool and members, a floating IP on its VIP. */
async function occmShaped(tags: string[] = [LB_NAME]) {
  const world = w.h.emulator.world;
  const subnet = [...world.networks.values()].find((n) => n.name === "private")?.subnetID;
  const made = await w.h.call("POST", "/load-balancer/v2/lbaas/loadbalancers", {
    body: {
      loadbalancer: {
        name: LB_NAME,
        description: "Kubernetes external service default/web from cluster kubernetes",
        vip_subnet_id: subnet,
        tags,
        listeners: [
          {
            name: `listener_0_${LB_NAME}`,
            protocol: "TCP",
            protocol_port: 80,
            connection_limit: -1,
            timeout_client_data: 50000,
            timeout_member_connect: 5000,
            timeout_member_data: 50000,
            timeout_tcp_inspect: 0,
            tags: [LB_NAME],
            default_pool: {
              name: `pool_0_${LB_NAME}`,
              protocol: "TCP",
              lb_algorithm: "ROUND_ROBIN",
              members: w.nodes.map((n) => ({
                name: n.metadata?.name,
                address: n.status?.addresses?.[0]?.address,
                protocol_port: 30080,
              })),
            },
          },
        ],
      },
    },
  });
  const lb = made.body.loadbalancer;
  await w.h.call("GET", `/load-balancer/v2/lbaas/loadbalancers/${lb.id}`);
  const fip = await w.h.call("POST", "/networking/v2.0/floatingips", {
    body: {
      floatingip: {
        floating_network_id: w.floatingNetwork,
        port_id: lb.vip_port_id,
        description: "Floating IP for Kubernetes external service default/web from cluster kubernetes",
      },
    },
  });
  w.h.emulator.calls.reset();
  return { id: lb.id as string, ip: fip.body.floatingip.floating_ip_address as string };
}

describe("adopting OCCM's load balancer", () => {
  test("plan says adopt, names the one change, and the status it keeps; nothing is written", async () => {
    w = await startLB();
    const { ip } = await occmShaped();
    const plan = await w.lb.planLoadBalancer?.(ctx, "kubernetes", service(), w.nodes);
    expect(plan?.action).toBe("adopt");
    expect(plan?.changes).toEqual([`tag the load balancer ${LB_NAME}, kube_service_uid=${service().metadata?.uid}`]);
    expect(plan?.status).toEqual({ ingress: [{ ip }] });
    expect(writes(w.h)).toEqual([]);
  });

  test("ensure adopts it in place: one tag update, no create, no delete, no new floating IP", async () => {
    w = await startLB();
    const { id, ip } = await occmShaped();
    const status = await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
    expect(writes(w.h)).toEqual(["PUT /load-balancer/v2/lbaas/loadbalancers/:id"]);
    expect(w.only().id).toBe(id);
    expect(status).toEqual({ ingress: [{ ip }] });
    expect(w.h.emulator.world.octavia.floatingIPs.size).toBe(1);
  });
});

test("one under OCCM's legacy name (a + the UID) is adopted too, keeping its name", async () => {
  w = await startLB();
  const { id } = await occmShaped([]);
  const legacy = `a${service().metadata?.uid?.replaceAll("-", "")}`.slice(0, 32);
  const lb = w.only();
  lb.name = legacy;
  await w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);
  expect(w.only().id).toBe(id);
  expect(w.only().name).toBe(legacy);
  expect(w.h.emulator.calls.count("POST /load-balancer/v2/lbaas/loadbalancers")).toBe(0);
});

describe("another cluster's load balancer of the same name", () => {
  test("is refused with a Warning naming it, and neither changed nor deleted", async () => {
    w = await startLB();
    const { id } = await occmShaped([LB_NAME, "kube_service_uid=99999999-0000-0000-0000-000000000000"]);
    const err = await rejection(() => w.lb.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes));
    expect(err.message).toContain(`load balancer ${id}`);
    expect(err.message).toContain("belongs to another Service");
    expect(w.warnings.some((m) => m.includes(id) && m.includes("another Service"))).toBe(true);
    await w.lb.ensureLoadBalancerDeleted(ctx, "kubernetes", service());
    expect(writes(w.h)).toEqual([]);
    expect(w.only().id).toBe(id);
    expect(await w.lb.getLoadBalancer(ctx, "kubernetes", service())).toBeUndefined();
  });

  test("plan refuses it too, writing nothing", async () => {
    w = await startLB();
    await occmShaped([LB_NAME, "kube_service_uid=99999999-0000-0000-0000-000000000000"]);
    const err = await rejection(async () => w.lb.planLoadBalancer?.(ctx, "kubernetes", service(), w.nodes));
    expect(err.message).toContain("belongs to another Service");
    expect(writes(w.h)).toEqual([]);
  });
});
