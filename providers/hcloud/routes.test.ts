import { afterEach, describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { createServer } from "../../sandbox/hcloud/testing.ts";
import { findInCauseChain, RetryError } from "../errors.ts";
import { rejection } from "../testing.ts";
import type { CloudServer } from "./api/servers.ts";
import { networkRef } from "./network.ts";
import { createRoutes, listedRoutes, parseRouteName, routeName } from "./routes.ts";
import { cluster, type Emulators, node, providerID, startEmulators } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

function setUp(nodes: readonly Node[] = []) {
  e = startEmulators();
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? "", n]));
  const routes = createRoutes({
    servers: e.servers,
    networks: e.networks,
    network: networkRef(e.networks, "k8s"),
    node: (name) => byName.get(name),
  });
  return { e, routes };
}

const server = (name: string, ip: string, network = 7): CloudServer => ({
  id: 1,
  name,
  status: "running",
  type: "cx22",
  location: "fsn1",
  networkZone: "eu-central",
  privateNets: [{ network, ip }],
  labels: {},
});

describe("route names and listing", () => {
  test.each([
    ["10.0.1.2-10.244.1.0/24", { gateway: "10.0.1.2", destination: "10.244.1.0/24" }],
    ["10.0.1.2-", undefined],
    ["node-1-10.244.1.0/24", undefined],
    ["uid-1234", undefined],
  ])("parses %j", (name, want) => {
    expect(parseRouteName(name)).toEqual(want);
    if (want) expect(routeName(want)).toBe(name);
  });

  test("a route through a server's private IP targets it; any other is a blackhole", () => {
    const routes = [
      { destination: "10.244.1.0/24", gateway: "10.0.1.2" },
      { destination: "10.244.2.0/24", gateway: "10.0.1.9" },
      { destination: "10.244.3.0/24", gateway: "10.0.1.3" },
    ];
    const servers = [server("node-1", "10.0.1.2"), server("elsewhere", "10.0.1.3", 8)];
    expect(listedRoutes(routes, servers, 7)).toEqual([
      { name: "10.0.1.2-10.244.1.0/24", destinationCIDR: "10.244.1.0/24", targetNode: "node-1" },
      { name: "10.0.1.9-10.244.2.0/24", destinationCIDR: "10.244.2.0/24", targetNode: "", blackhole: true },
      { name: "10.0.1.3-10.244.3.0/24", destinationCIDR: "10.244.3.0/24", targetNode: "", blackhole: true },
    ]);
  });
});

describe("routes against the emulator", () => {
  test("creates a route through the node's private IP, lists it, and deletes it as listed", async () => {
    const { e, routes } = setUp();
    const { network } = await cluster(e.h, ["node-1", "node-2"]);
    const internal = [{ type: "InternalIP" as const, address: "10.0.1.3" }];
    await routes.createRoute(ctx, "k", "uid-2", {
      name: "",
      targetNode: "node-2",
      destinationCIDR: "10.244.2.0/24",
      targetNodeAddresses: internal,
    });
    expect(e.h.emulator.world.network(network).routes).toEqual([{ destination: "10.244.2.0/24", gateway: "10.0.1.3" }]);
    const listed = await routes.listRoutes(ctx, "k");
    expect(listed).toEqual([
      { name: "10.0.1.3-10.244.2.0/24", destinationCIDR: "10.244.2.0/24", targetNode: "node-2" },
    ]);
    // Creating it again is a no-op, not an error.
    await routes.createRoute(ctx, "k", "uid-2", { name: "", targetNode: "node-2", destinationCIDR: "10.244.2.0/24" });
    await routes.deleteRoute(ctx, "k", listed[0]!);
    expect(e.h.emulator.world.network(network).routes).toEqual([]);
  });

  test("a route through another gateway is replaced; a deleted server's route is listed as a blackhole", async () => {
    const { e, routes } = setUp();
    const { network, ids } = await cluster(e.h, ["node-1", "node-2"]);
    await e.h.call("POST", `/networks/${network}/actions/add_route`, {
      destination: "10.244.1.0/24",
      gateway: "10.0.1.3",
    });
    await routes.createRoute(ctx, "k", "uid-1", { name: "", targetNode: "node-1", destinationCIDR: "10.244.1.0/24" });
    expect(e.h.emulator.world.network(network).routes).toEqual([{ destination: "10.244.1.0/24", gateway: "10.0.1.2" }]);
    await e.h.call("DELETE", `/servers/${ids[0]}`);
    expect(await routes.listRoutes(ctx, "k")).toEqual([
      { name: "10.0.1.2-10.244.1.0/24", destinationCIDR: "10.244.1.0/24", targetNode: "", blackhole: true },
    ]);
  });

  test("finds the server by the Node's provider ID when its name differs", async () => {
    const n = node("k8s-worker-a");
    const { e, routes } = setUp([n]);
    const { ids } = await cluster(e.h, ["cloud-name-a"]);
    providerID(`hcloud://${ids[0]}`)(n);
    await routes.createRoute(ctx, "k", "uid", {
      name: "",
      targetNode: "k8s-worker-a",
      destinationCIDR: "10.244.5.0/24",
    });
    expect((await routes.listRoutes(ctx, "k")).map((r) => r.name)).toEqual(["10.0.1.2-10.244.5.0/24"]);
  });

  test("locked answers are waited out", async () => {
    const { e, routes } = setUp();
    await cluster(e.h, ["node-1"]);
    await e.h.call("PUT", "/_emulator/faults", {
      failNext: [{ method: "POST", pathPrefix: "/networks", code: "locked", count: 2 }],
    });
    await routes.createRoute(ctx, "k", "uid", { name: "", targetNode: "node-1", destinationCIDR: "10.244.1.0/24" });
    expect((await routes.listRoutes(ctx, "k")).length).toBe(1);
  });

  test.each([
    ["an IPv6 pod CIDR", "node-1", "fd00:10:244::/64", undefined, "Hetzner private networks route IPv4 only"],
    ["a Robot node", "bm-1", "10.244.1.0/24", undefined, 'node "bm-1" is a Robot server (hrobot://321)'],
    ["no such server", "ghost", "10.244.1.0/24", undefined, 'no Cloud server for node "ghost"'],
    ["a server outside the network", "loner", "10.244.1.0/24", undefined, "is not attached to HCLOUD_NETWORK=k8s"],
    [
      "a node that does not know its private IP yet",
      "node-1",
      "10.244.1.0/24",
      [{ type: "ExternalIP" as const, address: "203.0.113.1" }],
      "InternalIPs (none) do not include its private IP 10.0.1.2",
    ],
  ])("refuses %s with a clear error", async (_, targetNode, destinationCIDR, targetNodeAddresses, says) => {
    const { e, routes } = setUp([node("bm-1", providerID("hrobot://321"))]);
    await cluster(e.h, ["node-1"]);
    await createServer(e.h, "loner");
    const err = await rejection(() =>
      routes.createRoute(ctx, "k", "uid", {
        name: "",
        targetNode,
        destinationCIDR,
        ...(targetNodeAddresses && { targetNodeAddresses }),
      }),
    );
    expect(err.message).toStartWith(`hcloud/routes.createRoute ${destinationCIDR} via node "${targetNode}"`);
    expect(err.message).toContain(says);
    // Only the node that does not know its private IP yet is "not yet" (a RetryError): the others are wrong.
    expect(findInCauseChain(err, RetryError) !== undefined).toBe(says.includes("do not include its private IP"));
    expect((await routes.listRoutes(ctx, "k")).length).toBe(0);
  });

  test("the 100-route limit says the stale ones go on the next sync", async () => {
    const { e, routes } = setUp();
    const { network } = await cluster(e.h, ["node-1"]);
    for (let i = 0; i < 100; i++) {
      await e.h.call("POST", `/networks/${network}/actions/add_route`, {
        destination: `10.100.${i}.0/24`,
        gateway: "10.0.1.200",
      });
    }
    const err = await rejection(() =>
      routes.createRoute(ctx, "k", "uid", { name: "", targetNode: "node-1", destinationCIDR: "10.244.1.0/24" }),
    );
    expect(err.message).toContain("maximum of 100 routes");
    const listed = await routes.listRoutes(ctx, "k");
    expect(listed.filter((r) => r.blackhole).length).toBe(100);
  });
});
