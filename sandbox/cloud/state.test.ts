import { describe, expect, test } from "bun:test";
import { createMachines } from "./fixtures.ts";
import { seededRandom } from "./random.ts";
import { type CloudChange, CloudError, CloudState } from "./state.ts";
import type { LoadBalancerSpec } from "./types.ts";

function newState(options: { pool?: string; clock?: { ms: number } } = {}): CloudState {
  const clock = options.clock ?? { ms: Date.parse("2026-01-01T00:00:00Z") };
  return new CloudState({
    random: seededRandom(1),
    now: () => new Date(clock.ms),
    ...(options.pool ? { loadBalancerPool: options.pool } : {}),
  });
}

function lbSpec(uid: string, nodes: string[] = ["node-1"]): LoadBalancerSpec {
  return {
    cluster: "kubernetes",
    serviceUID: uid,
    serviceNamespace: "default",
    serviceName: `svc-${uid}`,
    ports: [{ name: "http", protocol: "TCP", port: 80, nodePort: 30080 }],
    nodes,
  };
}

function refusal(run: () => unknown): { status: number; code: string } | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof CloudError) return { status: err.status, code: err.code };
    throw err;
  }
  return undefined;
}

describe("machines", () => {
  test("fixtures get predictable names, zones, types and default addresses", () => {
    const [m1, m2, m4] = createMachines(newState(), 4).filter((_, i) => i !== 2);
    expect(m1).toMatchObject({ name: "node-1", zone: "zone-a", region: "sandbox-1", instanceType: "sb-small" });
    expect(m2).toMatchObject({ name: "node-2", zone: "zone-b", instanceType: "sb-medium", state: "running" });
    expect(m4).toMatchObject({ name: "node-4", zone: "zone-a" });
    expect(m1?.providerID).toBe(`sandbox://${m1?.id}`);
    expect(m1?.addresses).toEqual([
      { type: "InternalIP", address: "10.0.0.1" },
      { type: "ExternalIP", address: "198.51.100.1" },
      { type: "Hostname", address: "node-1" },
    ]);
  });

  test("the same seed gives the same machine IDs", () => {
    const ids = () => createMachines(newState(), 3).map((m) => m.id);
    expect(ids()).toEqual(ids());
    expect(new Set(ids()).size).toBe(3);
  });

  test("lists in pages, with the next page number until the last", () => {
    const state = newState();
    createMachines(state, 5);
    const p1 = state.listMachines({ page: 1, perPage: 2 });
    const p3 = state.listMachines({ page: 3, perPage: 2 });
    expect(p1.machines.map((m) => m.name)).toEqual(["node-1", "node-2"]);
    expect(p1.pagination).toEqual({ page: 1, perPage: 2, total: 5, nextPage: 2 });
    expect(p3.machines.map((m) => m.name)).toEqual(["node-5"]);
    expect(p3.pagination.nextPage).toBeNull();
    expect(state.listMachines({ name: "node-4" }).machines.map((m) => m.name)).toEqual(["node-4"]);
  });

  test("refuses a taken name on create and on rename", () => {
    const state = newState();
    const [a] = createMachines(state, 2);
    expect(refusal(() => state.createMachine({ name: "node-2" }))).toEqual({ status: 409, code: "Conflict" });
    expect(refusal(() => state.updateMachine(a!.id, { name: "node-2" }))).toEqual({ status: 409, code: "Conflict" });
  });

  test("patch changes only the given fields and renames are found by the new name", () => {
    const state = newState();
    const [a] = createMachines(state, 1);
    state.updateMachine(a!.id, { state: "stopped", name: "renamed" });
    expect(state.findMachineByName("renamed")).toMatchObject({ id: a!.id, state: "stopped", zone: "zone-a" });
    expect(state.findMachineByName("node-1")).toBeUndefined();
  });

  test("delete frees the name and answers 404 the second time", () => {
    const state = newState();
    const [a] = createMachines(state, 1);
    state.deleteMachine(a!.id);
    expect(refusal(() => state.deleteMachine(a!.id))).toEqual({ status: 404, code: "NotFound" });
    expect(state.createMachine({ name: "node-1" }).name).toBe("node-1");
  });

  test("reads are copies that cannot change the state", () => {
    const state = newState();
    const [a] = createMachines(state, 1);
    a!.addresses.length = 0;
    state.getMachine(a!.id)!.state = "stopped";
    expect(state.getMachine(a!.id)).toMatchObject({ state: "running", addresses: { length: 3 } });
  });
});

describe("load balancers", () => {
  test("put creates once with a unique address, and the same put again changes nothing", () => {
    const clock = { ms: Date.parse("2026-01-01T00:00:00Z") };
    const state = newState({ clock });
    const first = state.putLoadBalancer("a1", lbSpec("1"));
    clock.ms += 60_000;
    const again = state.putLoadBalancer("a1", lbSpec("1"));
    const other = state.putLoadBalancer("a2", lbSpec("2"));
    expect(first.created).toBe(true);
    expect(again).toEqual({ loadBalancer: first.loadBalancer, created: false });
    expect(first.loadBalancer.address).toBe("203.0.113.1");
    expect(other.loadBalancer.address).toBe("203.0.113.2");
  });

  test("an update keeps the address and moves updatedAt", () => {
    const clock = { ms: Date.parse("2026-01-01T00:00:00Z") };
    const state = newState({ clock });
    const created = state.putLoadBalancer("a1", lbSpec("1")).loadBalancer;
    clock.ms += 1000;
    const patched = state.patchLoadBalancer("a1", { nodes: ["node-3", "node-2", "node-3"] });
    expect(patched).toMatchObject({ address: created.address, nodes: ["node-2", "node-3"], ports: created.ports });
    expect(patched.createdAt).toBe(created.createdAt);
    expect(patched.updatedAt).toBe("2026-01-01T00:00:01.000Z");
  });

  test("refuses a name owned by another service", () => {
    const state = newState();
    state.putLoadBalancer("a1", lbSpec("1"));
    expect(refusal(() => state.putLoadBalancer("a1", lbSpec("2")))).toEqual({ status: 409, code: "Conflict" });
  });

  test("delete frees the address; an exhausted pool answers 503", () => {
    const state = newState({ pool: "203.0.113.0/31" });
    state.putLoadBalancer("a1", lbSpec("1"));
    state.putLoadBalancer("a2", lbSpec("2"));
    expect(refusal(() => state.putLoadBalancer("a3", lbSpec("3")))).toEqual({
      status: 503,
      code: "AddressPoolExhausted",
    });
    state.deleteLoadBalancer("a1");
    expect(state.putLoadBalancer("a3", lbSpec("3")).loadBalancer.address).toBe("203.0.113.0");
    expect(refusal(() => state.deleteLoadBalancer("a1"))).toEqual({ status: 404, code: "NotFound" });
    expect(refusal(() => state.patchLoadBalancer("a1", { nodes: [] }))).toEqual({ status: 404, code: "NotFound" });
  });

  test("options left out get the defaults; a put replaces them, and the same options twice change nothing", () => {
    const state = newState();
    expect(state.putLoadBalancer("a1", lbSpec("1")).loadBalancer.options).toEqual({
      algorithm: "round-robin",
      healthCheck: { intervalMs: 15_000, retries: 3 },
      proxyProtocol: false,
      allowedCIDRs: [],
      portProtocols: {},
    });
    const tuned = {
      ...lbSpec("1"),
      options: { healthCheck: { retries: 5 }, portProtocols: { "80": "http" as const } },
    };
    const updated = state.putLoadBalancer("a1", tuned).loadBalancer;
    expect(updated.options).toMatchObject({
      healthCheck: { intervalMs: 15_000, retries: 5 },
      portProtocols: { 80: "http" },
    });
    expect(state.putLoadBalancer("a1", tuned).loadBalancer).toEqual(updated);
    expect(state.patchLoadBalancer("a1", { nodes: ["node-2"] }).options).toEqual(updated.options);
    expect(state.putLoadBalancer("a1", lbSpec("1")).loadBalancer.options.portProtocols).toEqual({});
  });

  test.each([
    [
      "a protocol for a port it does not have",
      { "443": "https" as const },
      "options.portProtocols.443: the load balancer has no port 443",
    ],
    ["HTTP on a UDP port", { "53": "http" as const }, "options.portProtocols.53: http needs a TCP port"],
  ])("refuses %s", (_, portProtocols, message) => {
    const state = newState();
    const spec = { ...lbSpec("1"), options: { portProtocols } };
    spec.ports = [...spec.ports, { name: "dns", protocol: "UDP", port: 53, nodePort: 30053 }];
    let err: unknown;
    try {
      state.putLoadBalancer("a1", spec);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: 400, code: "InvalidRequest", message });
    expect(state.listLoadBalancers()).toEqual([]);
  });

  test("lists by name, filtered by cluster", () => {
    const state = newState();
    state.putLoadBalancer("b", lbSpec("1"));
    state.putLoadBalancer("a", { ...lbSpec("2"), cluster: "other" });
    expect(state.listLoadBalancers().map((lb) => lb.name)).toEqual(["a", "b"]);
    expect(state.listLoadBalancers({ cluster: "other" }).map((lb) => lb.name)).toEqual(["a"]);
  });
});

describe("routes", () => {
  const route = { name: "r1", cluster: "k", targetNode: "node-1", destinationCIDR: "10.244.1.0/24", nameHint: "u" };

  test("creating the same route twice is a no-op; a different one under the name is a conflict", () => {
    const state = newState();
    expect(state.createRoute(route).created).toBe(true);
    expect(state.createRoute(route).created).toBe(false);
    expect(refusal(() => state.createRoute({ ...route, targetNode: "node-2" }))).toEqual({
      status: 409,
      code: "Conflict",
    });
    state.deleteRoute("r1");
    expect(state.listRoutes()).toEqual([]);
    expect(refusal(() => state.deleteRoute("r1"))).toEqual({ status: 404, code: "NotFound" });
  });
});

test("reports every change to subscribers until they unsubscribe", () => {
  const state = newState();
  const seen: CloudChange[] = [];
  const unsubscribe = state.onChange((c) => seen.push(c));
  const [m] = createMachines(state, 1);
  state.putLoadBalancer("a1", lbSpec("1"));
  unsubscribe();
  state.deleteMachine(m!.id);
  expect(seen.map((c) => `${c.kind} ${c.action}`)).toEqual(["machine created", "loadBalancer created"]);
});
