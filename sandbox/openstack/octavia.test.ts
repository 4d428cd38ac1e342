/**
 * The emulator's Octavia and floating IPs against the API reference (testdata/api-facts.ts), and the provisioning
 * state machine a manager must live with: PENDING_* then ACTIVE, 409 while immutable, ERROR and stuck on demand,
 * cascade delete releasing the VIP port and its floating IP.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { networkNamed } from "./state.ts";
import * as facts from "./testdata/api-facts.ts";
import { breaches, type Harness, startHarness } from "./testing.ts";

const LB = "/load-balancer/v2/lbaas";
let h: Harness;
beforeEach(() => {
  h = startHarness();
});
afterEach(() => h.stop());

function populated(subnet: string) {
  return {
    loadbalancer: {
      name: "kube_service_kubernetes_default_web",
      vip_subnet_id: subnet,
      tags: ["kube_service_kubernetes_default_web"],
      listeners: [
        {
          name: "listener_0",
          protocol: "TCP",
          protocol_port: 80,
          default_pool: {
            name: "pool_0",
            protocol: "TCP",
            lb_algorithm: "ROUND_ROBIN",
            members: [{ name: "node-1", address: "10.0.0.10", protocol_port: 30080 }],
            healthmonitor: { name: "monitor_0", type: "TCP", delay: 5, timeout: 3, max_retries: 1 },
          },
        },
      ],
    },
  };
}

async function created(): Promise<string> {
  const subnet = networkNamed(h.emulator.world, "private").subnetID;
  const res = await h.call("POST", `${LB}/loadbalancers`, { body: populated(subnet) });
  expect(res.status).toBe(201);
  return res.body.loadbalancer.id;
}

async function statusOf(id: string): Promise<string> {
  return (await h.call("GET", `${LB}/loadbalancers/${id}`)).body.loadbalancer.provisioning_status;
}

describe("answers", () => {
  test("a fully populated load balancer and each of its children have every documented field", async () => {
    const id = await created();
    const lb = (await h.call("GET", `${LB}/loadbalancers/${id}`)).body.loadbalancer;
    expect(breaches(lb, facts.octaviaLoadBalancer)).toEqual([]);
    const listeners = (await h.call("GET", `${LB}/listeners?loadbalancer_id=${id}`)).body.listeners;
    expect(listeners).toHaveLength(1);
    expect(breaches(listeners[0], facts.octaviaListener)).toEqual([]);
    const pools = (await h.call("GET", `${LB}/pools?loadbalancer_id=${id}`)).body.pools;
    expect(breaches(pools[0], facts.octaviaPool)).toEqual([]);
    expect(listeners[0].default_pool_id).toBe(pools[0].id);
    const members = (await h.call("GET", `${LB}/pools/${pools[0].id}/members`)).body.members;
    expect(breaches(members[0], facts.octaviaMember)).toEqual([]);
    const monitor = (await h.call("GET", `${LB}/healthmonitors/${pools[0].healthmonitor_id}`)).body.healthmonitor;
    expect(breaches(monitor, facts.octaviaMonitor)).toEqual([]);
  });

  test.each([
    ["an unknown load balancer", "GET", `${LB}/loadbalancers/nope`, undefined, 404],
    ["a create without a VIP", "POST", `${LB}/loadbalancers`, { loadbalancer: { name: "x" } }, 400],
    ["a malformed listener", "POST", `${LB}/listeners`, { listener: { protocol: "FTP" } }, 400],
  ])("%s is answered in Octavia's fault envelope", async (_, method, path, body, status) => {
    const res = await h.call(method, path, body === undefined ? {} : { body });
    expect(res.status).toBe(status);
    expect(breaches(res.body, facts.octaviaFault)).toEqual([]);
  });

  test("a floating IP has every documented field, bound to a VIP port and released with it", async () => {
    const id = await created();
    const vipPort = (await h.call("GET", `${LB}/loadbalancers/${id}`)).body.loadbalancer.vip_port_id;
    const network = networkNamed(h.emulator.world, "public").id;
    const res = await h.call("POST", "/networking/v2.0/floatingips", {
      body: { floatingip: { floating_network_id: network, port_id: vipPort, description: "mine" } },
    });
    expect(res.status).toBe(201);
    expect(breaches(res.body.floatingip, facts.floatingIP)).toEqual([]);
    expect((await h.call("GET", `/networking/v2.0/floatingips?port_id=${vipPort}`)).body.floatingips).toHaveLength(1);
    await statusOf(id);
    expect((await h.call("DELETE", `${LB}/loadbalancers/${id}?cascade=true`)).status).toBe(204);
    expect((await h.call("GET", `${LB}/loadbalancers/${id}`)).status).toBe(404);
    const fip = (await h.call("GET", `/networking/v2.0/floatingips/${res.body.floatingip.id}`)).body.floatingip;
    expect(fip.port_id).toBeNull();
  });

  test("a network's subnets, filtered by network_id, have every documented field", async () => {
    const network = networkNamed(h.emulator.world, "public");
    const res = await h.call("GET", `/networking/v2.0/subnets?network_id=${network.id}`);
    expect(res.body.subnets.map((s: { id: string }) => s.id)).toEqual([network.subnetID]);
    expect(breaches(res.body.subnets[0], facts.subnet)).toEqual([]);
  });

  test("a floating IP on a network that is not external is 400 in Neutron's envelope", async () => {
    const network = networkNamed(h.emulator.world, "private").id;
    const res = await h.call("POST", "/networking/v2.0/floatingips", {
      body: { floatingip: { floating_network_id: network } },
    });
    expect(res.status).toBe(400);
    expect(breaches(res.body.NeutronError, facts.neutronError)).toEqual([]);
  });

  test("a floating IP on a subnet of another network is 400 naming the subnet", async () => {
    const world = h.emulator.world;
    const res = await h.call("POST", "/networking/v2.0/floatingips", {
      body: {
        floatingip: {
          floating_network_id: networkNamed(world, "public").id,
          subnet_id: networkNamed(world, "private").subnetID,
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.NeutronError.message).toContain(networkNamed(world, "private").subnetID);
  });
});

describe("provisioning state machine", () => {
  test("PENDING_CREATE until read, then ACTIVE; a change while pending is 409", async () => {
    h.emulator.world.octavia.pendingReads = 2;
    const id = await created();
    const change = await h.call("PUT", `${LB}/loadbalancers/${id}`, { body: { loadbalancer: { tags: ["x"] } } });
    expect(change.status).toBe(409);
    expect(change.body.faultstring).toContain("PENDING_CREATE");
    expect(await statusOf(id)).toBe("PENDING_CREATE");
    expect(await statusOf(id)).toBe("ACTIVE");
    const again = await h.call("PUT", `${LB}/loadbalancers/${id}`, { body: { loadbalancer: { tags: ["x"] } } });
    expect(again.status).toBe(200);
    expect(again.body.loadbalancer.provisioning_status).toBe("PENDING_UPDATE");
  });

  test("a stuck load balancer never leaves PENDING_UPDATE and refuses a delete", async () => {
    const id = await created();
    await statusOf(id);
    await fetch(`${h.emulator.controlUrl}/loadbalancers/${id}`, {
      method: "PUT",
      body: JSON.stringify({ status: "PENDING_UPDATE", fault: "stuck" }),
    });
    for (let i = 0; i < 3; i++) expect(await statusOf(id)).toBe("PENDING_UPDATE");
    expect((await h.call("DELETE", `${LB}/loadbalancers/${id}?cascade=true`)).status).toBe(409);
  });

  test("an injected error lands in ERROR, which refuses changes but takes a cascade delete", async () => {
    const id = await created();
    await fetch(`${h.emulator.controlUrl}/loadbalancers/${id}`, {
      method: "PUT",
      body: JSON.stringify({ fault: "error" }),
    });
    expect(await statusOf(id)).toBe("ERROR");
    const change = await h.call("PUT", `${LB}/loadbalancers/${id}`, { body: { loadbalancer: { tags: ["x"] } } });
    expect(change.status).toBe(409);
    expect((await h.call("DELETE", `${LB}/loadbalancers/${id}`)).status).toBe(400);
    expect((await h.call("DELETE", `${LB}/loadbalancers/${id}?cascade=true`)).status).toBe(204);
  });

  test("a batch member update replaces the members and keeps those already there", async () => {
    const id = await created();
    await statusOf(id);
    const pool = (await h.call("GET", `${LB}/pools?loadbalancer_id=${id}`)).body.pools[0];
    const before = (await h.call("GET", `${LB}/pools/${pool.id}/members`)).body.members[0];
    const res = await h.call("PUT", `${LB}/pools/${pool.id}/members`, {
      body: {
        members: [
          { name: "node-1", address: "10.0.0.10", protocol_port: 30080 },
          { name: "node-2", address: "10.0.0.11", protocol_port: 30080 },
        ],
      },
    });
    expect(res.status).toBe(202);
    const after = (await h.call("GET", `${LB}/pools/${pool.id}/members`)).body.members;
    expect(after.map((m: { address: string }) => m.address)).toEqual(["10.0.0.10", "10.0.0.11"]);
    expect(after[0].id).toBe(before.id);
  });

  test.each([
    ["ovn refuses ROUND_ROBIN", "ovn", "ROUND_ROBIN", 400],
    ["ovn takes SOURCE_IP_PORT", "ovn", "SOURCE_IP_PORT", 201],
    ["amphora refuses SOURCE_IP_PORT", "amphora", "SOURCE_IP_PORT", 400],
  ])("%s", async (_, provider, algorithm, status) => {
    const body = populated(networkNamed(h.emulator.world, "private").subnetID);
    const lb = { ...body.loadbalancer, provider };
    const listener = lb.listeners[0] as (typeof lb.listeners)[0];
    const pool = { ...listener.default_pool, lb_algorithm: algorithm, healthmonitor: undefined };
    const res = await h.call("POST", `${LB}/loadbalancers`, {
      body: { loadbalancer: { ...lb, listeners: [{ ...listener, default_pool: pool }] } },
    });
    expect(res.status).toBe(status);
  });
});
