/**
 * The planner alone: a load balancer as read and as wanted → the operations, in Octavia's order. Each row tweaks a
 * converged load balancer one way and names what the planner must do about it.
 */
import { describe, expect, test } from "bun:test";
import type { LoadBalancerView, PoolView } from "../api/octavia-schemas.ts";
import type { DesiredListener, DesiredLoadBalancer } from "./desired.ts";
import { describe as describeOp, planLoadBalancer } from "./plan.ts";
import { previewLoadBalancer } from "./preview.ts";

const NAME = "kube_service_k_default_web";
const OWNER = "kube_service_uid=u-1";

function wantListener(port: number, tweak: Partial<DesiredListener> = {}): DesiredListener {
  return {
    key: `TCP:${port}`,
    listener: {
      name: `listener_0_${NAME}`,
      protocol: "TCP",
      protocol_port: port,
      connection_limit: -1,
      timeout_client_data: 50000,
      timeout_member_connect: 5000,
      timeout_member_data: 50000,
      timeout_tcp_inspect: 0,
      tags: [NAME],
    },
    pool: { name: `pool_0_${NAME}`, protocol: "TCP", lb_algorithm: "ROUND_ROBIN", session_persistence: null },
    members: [
      { name: "n1", address: "10.0.0.10", protocol_port: 30080 },
      { name: "n2", address: "10.0.0.11", protocol_port: 30080 },
    ],
    monitor: undefined,
    ...tweak,
  };
}

function wanted(listeners = [wantListener(80)], tweak: Partial<DesiredLoadBalancer> = {}): DesiredLoadBalancer {
  return {
    uid: "u-1",
    name: NAME,
    description: "",
    tags: [NAME, OWNER],
    provider: "amphora",
    vip: { subnetID: "s" },
    listeners,
    floating: { networkID: "public" },
    floatingDescription: "Floating IP for Kubernetes external service default/web from cluster k",
    internal: false,
    keepFloatingIP: false,
    proxyProtocol: false,
    ...tweak,
  };
}

/** The load balancer exactly as `wanted()` asks, with its floating IP. */
function converged(d = wanted()): LoadBalancerView {
  return {
    lb: {
      id: "lb-1",
      name: NAME,
      description: "",
      provisioning_status: "ACTIVE",
      operating_status: "ONLINE",
      provider: "amphora",
      vip_address: "10.0.0.50",
      vip_port_id: "vip",
      vip_subnet_id: "s",
      vip_network_id: "n",
      flavor_id: "",
      availability_zone: null,
      listeners: [],
      pools: [],
      tags: [...d.tags],
    },
    listeners: d.listeners.map((w, i) => ({
      listener: {
        ...w.listener,
        id: `l-${i}`,
        default_pool_id: `p-${i}`,
        timeout_client_data: w.listener.timeout_client_data ?? null,
        timeout_member_connect: w.listener.timeout_member_connect ?? null,
        timeout_member_data: w.listener.timeout_member_data ?? null,
        timeout_tcp_inspect: w.listener.timeout_tcp_inspect ?? null,
        insert_headers: {},
        allowed_cidrs: null,
        default_tls_container_ref: null,
        tags: [...w.listener.tags],
      },
      pool: pool(i, w),
    })),
    floatingIP: {
      id: "f",
      floating_ip_address: "203.0.113.5",
      floating_network_id: "public",
      port_id: "vip",
      description: "",
    },
  };
}

function pool(i: number, w: DesiredListener): PoolView {
  return {
    pool: { ...w.pool, id: `p-${i}`, listeners: [{ id: `l-${i}` }], healthmonitor_id: null },
    members: w.members.map((m, j) => ({ ...m, id: `m-${j}`, subnet_id: null, monitor_port: null })),
    monitor: undefined,
  };
}

const ops = (view: LoadBalancerView, d: DesiredLoadBalancer) => planLoadBalancer(view, d).map(describeOp);

describe("planLoadBalancer", () => {
  test("a converged load balancer needs nothing", () => {
    expect(ops(converged(), wanted())).toEqual([]);
  });

  test.each<[string, (v: LoadBalancerView) => LoadBalancerView, DesiredLoadBalancer, string[]]>([
    [
      "OCCM's, untagged by UID: the tag added, nothing else",
      (v) => ({ ...v, lb: { ...v.lb, tags: [NAME] } }),
      wanted(),
      [`tag the load balancer ${NAME}, ${OWNER}`],
    ],
    [
      "a Node gone and one come: the members replaced in one call",
      (v) => v,
      wanted([wantListener(80, { members: [{ name: "n3", address: "10.0.0.12", protocol_port: 30080 }] })]),
      ["set members of port 80 to 10.0.0.12:30080"],
    ],
    [
      "a member subnet asked for (member-subnet-id): the members made again on it",
      (v) => v,
      wanted([
        wantListener(80, {
          members: [
            { name: "n1", address: "10.0.0.10", protocol_port: 30080, subnet_id: "member-subnet" },
            { name: "n2", address: "10.0.0.11", protocol_port: 30080, subnet_id: "member-subnet" },
          ],
        }),
      ]),
      ["set members of port 80 to 10.0.0.10:30080, 10.0.0.11:30080"],
    ],
    [
      "members on a subnet Octavia recorded, none asked for: kept (an adopted load balancer's)",
      (v) => {
        const l = v.listeners[0] as LoadBalancerView["listeners"][0];
        const members = (l.pool?.members ?? []).map((m) => ({ ...m, subnet_id: "vip-subnet" }));
        return { ...v, listeners: [{ ...l, pool: l.pool && { ...l.pool, members } }] };
      },
      wanted(),
      [],
    ],
    [
      "a port added: its listener made with pool and members",
      (v) => v,
      wanted([wantListener(80), wantListener(443)]),
      ["create listener TCP:443 with pool TCP and 2 member(s)"],
    ],
    [
      "a port removed: its pool and listener deleted",
      (v) => v,
      wanted([]),
      ["delete listener l-0 on port 80 and its pool"],
    ],
    [
      "a timeout changed: the listener updated",
      (v) => v,
      wanted([wantListener(80, { listener: { ...wantListener(80).listener, timeout_client_data: 1000 } })]),
      ["update listener on port 80 (timeout_client_data)"],
    ],
    [
      "the algorithm changed: the pool updated",
      (v) => v,
      wanted([wantListener(80, { pool: { ...wantListener(80).pool, lb_algorithm: "LEAST_CONNECTIONS" } })]),
      ["update pool of port 80 (lb_algorithm)"],
    ],
    [
      "the PROXY protocol turned on: the pool replaced (Octavia cannot change a pool's protocol)",
      (v) => v,
      wanted([wantListener(80, { pool: { ...wantListener(80).pool, protocol: "PROXY" } })]),
      ["delete pool of port 80", "create pool PROXY for port 80 with 2 member(s)"],
    ],
    [
      "a monitor asked for: one made",
      (v) => v,
      wanted([
        wantListener(80, {
          monitor: { name: "m", type: "TCP", delay: 5, timeout: 3, max_retries: 1, max_retries_down: 3 },
        }),
      ]),
      ["create TCP monitor on port 80"],
    ],
    [
      "another Service's listener on the same load balancer is left alone",
      (v) => {
        const ours = v.listeners[0] as LoadBalancerView["listeners"][0];
        const theirs = {
          ...ours,
          listener: { ...ours.listener, id: "theirs", protocol_port: 8080, tags: ["kube_service_k_default_other"] },
        };
        return { ...v, listeners: [...v.listeners, theirs] };
      },
      wanted(),
      [],
    ],
  ])("%s", (_, tweak, d, expected) => {
    expect(ops(tweak(converged()), d)).toEqual(expected);
  });
});

describe("previewLoadBalancer", () => {
  test("nothing found: create, with the floating IP", () => {
    const plan = previewLoadBalancer(undefined, wanted(), []);
    expect(plan.action).toBe("create");
    expect(plan.changes).toEqual([
      "create amphora load balancer with listeners TCP:80 and 2 member(s) each",
      "create a floating IP on network public",
    ]);
    expect(plan.status).toBeUndefined();
  });

  test("OCCM's: adopt, keeping the floating IP as the status", () => {
    const view = { ...converged(), lb: { ...converged().lb, tags: [NAME] } };
    const plan = previewLoadBalancer(view, wanted(), planLoadBalancer(view, wanted()));
    expect(plan.action).toBe("adopt");
    expect(plan.status).toEqual({ ingress: [{ ip: "203.0.113.5" }] });
  });

  test("ours and converged: none; in ERROR: rebuilt, status not known", () => {
    expect(previewLoadBalancer(converged(), wanted(), []).action).toBe("none");
    const broken = { ...converged(), lb: { ...converged().lb, provisioning_status: "ERROR" } };
    const plan = previewLoadBalancer(broken, wanted(), []);
    expect(plan).toMatchObject({ action: "update", changes: ["delete and make again (it is in ERROR)"] });
    expect(plan.status).toBeUndefined();
  });
});
