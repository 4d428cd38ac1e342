/**
 * What the simulated cloud can be made to say through its REST API beyond machines' basics: pending metadata,
 * hidden provider IDs, labels, and routes that keep their target node's addresses (`/v1/settings`).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type SimulatedCloud, startSimulatedCloud } from "./server.ts";

let cloud: SimulatedCloud;
beforeEach(() => {
  cloud = startSimulatedCloud({ token: "secret", seed: 5 });
});
afterEach(() => cloud.stop());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${cloud.url}${path}`, {
    method,
    headers: { authorization: "Bearer secret", "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const route = { name: "r1", cluster: "kubernetes", targetNode: "node-1", destinationCIDR: "10.128.0.0/24" };
const addresses = [
  { type: "InternalIP", address: "10.0.0.1" },
  { type: "InternalDNS", address: "node-1.internal" },
];

describe("machines say what a provider may say", () => {
  test("a machine says nothing more by default", async () => {
    const { status, body } = await call("POST", "/v1/machines", { name: "node-1" });
    expect(status).toBe(201);
    expect(body.machine).toMatchObject({ labels: {}, metadataPending: false, providerIDHidden: false });
  });

  test("labels, pending metadata and a hidden provider ID are set at creation and changed by PATCH", async () => {
    const labels = { "example.com/rack": "r1", "kubernetes.io/hostname": "x" };
    const created = await call("POST", "/v1/machines", { name: "node-1", labels, metadataPending: true });
    expect(created.body.machine).toMatchObject({ labels, metadataPending: true, providerIDHidden: false });
    const id = created.body.machine.id;
    const patched = await call("PATCH", `/v1/machines/${id}`, { metadataPending: false, providerIDHidden: true });
    expect(patched.body.machine).toMatchObject({ labels, metadataPending: false, providerIDHidden: true });
    const relabelled = await call("PATCH", `/v1/machines/${id}`, { labels: {} });
    expect(relabelled.body.machine.labels).toEqual({});
  });

  test.each([
    ["a label key with a space", { labels: { "a b": "c" } }, "labels.a b: a label key"],
    ["a label value too long", { labels: { a: "v".repeat(64) } }, "labels.a: a label value"],
    ["a label prefix in upper case", { labels: { "Example.com/a": "b" } }, "labels.Example.com/a: a label key"],
    ["a pending flag that is not a boolean", { metadataPending: "yes" }, "metadataPending: Invalid type"],
  ])("refuses %s, naming the field", async (_name, fields, message) => {
    const { status, body } = await call("POST", "/v1/machines", { name: "node-1", ...fields });
    expect(status).toBe(400);
    expect(body.error.message).toContain(message);
  });
});

describe("routes keep their target node's addresses only while the cloud's setting says so", () => {
  test("by default the addresses are dropped", async () => {
    expect((await call("GET", "/v1/settings")).body).toEqual({ settings: { routeNodeAddresses: false } });
    const created = await call("POST", "/v1/routes", { ...route, targetNodeAddresses: addresses });
    expect(created.status).toBe(201);
    expect(created.body.route.targetNodeAddresses).toBeUndefined();
    // Sent again with the addresses, it is the same route.
    expect((await call("POST", "/v1/routes", { ...route, targetNodeAddresses: addresses })).status).toBe(200);
  });

  test("with routeNodeAddresses on, they are kept and listed; routes created before keep what they had", async () => {
    await call("POST", "/v1/routes", { ...route, name: "before", targetNodeAddresses: addresses });
    expect((await call("PUT", "/v1/settings", { routeNodeAddresses: true })).body).toEqual({
      settings: { routeNodeAddresses: true },
    });
    await call("POST", "/v1/routes", { ...route, targetNodeAddresses: addresses });
    const listed = (await call("GET", "/v1/routes")).body.routes;
    expect(listed.map((r: { name: string; targetNodeAddresses?: unknown }) => [r.name, r.targetNodeAddresses])).toEqual(
      [
        ["before", undefined],
        ["r1", addresses],
      ],
    );
    expect((await call("PUT", "/v1/settings", {})).body.settings.routeNodeAddresses).toBe(false);
  });

  test("refuses an unknown setting, naming it", async () => {
    const { status, body } = await call("PUT", "/v1/settings", { routeAddresses: true });
    expect(status).toBe(400);
    expect(body.error.message).toBe("routeAddresses: unknown field");
  });

  test("settings are a control endpoint: injected faults never reach them", async () => {
    cloud.faults.set({ errorRate: 1 });
    expect((await call("GET", "/v1/settings")).status).toBe(200);
    expect((await call("GET", "/v1/routes")).status).toBe(500);
  });
});
