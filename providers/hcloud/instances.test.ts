import { afterEach, describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { createServer as createServerInWorld } from "../../sandbox/hcloud/state/servers.ts";
import { createServer } from "../../sandbox/hcloud/testing.ts";
import { InstanceNotFoundError } from "../errors.ts";
import type { WarningRecorder } from "../kit/warning-events.ts";
import { rejection } from "../testing.ts";
import { createHcloudTransport } from "./api/client.ts";
import { HcloudServers } from "./api/servers.ts";
import { addresses, cluster, type Emulators, instancesOn, node, providerID, startEmulators } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
let e: Emulators | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});
const setUp = () => {
  e = startEmulators();
  return e;
};

describe("Cloud servers", () => {
  test.each([
    ["by provider ID", true],
    ["by name", false],
  ])("initialises a Node found %s, with its private IP from HCLOUD_NETWORK", async (_, byID) => {
    const e = setUp();
    const { ids } = await cluster(e.h, ["node-1", "node-2"]);
    const n = byID ? node("whatever", providerID(`hcloud://${ids[1]}`)) : node("node-2");
    const m = await instancesOn(e, { network: "k8s" }).instanceMetadata(ctx, n);
    expect(m).toMatchObject({
      providerID: `hcloud://${ids[1]}`,
      instanceType: "cx22",
      region: "fsn1",
      zone: "fsn1-dc14",
      additionalLabels: { "instance.hetzner.cloud/provided-by": "cloud" },
    });
    expect(m?.nodeAddresses).toEqual([
      { type: "Hostname", address: "node-2" },
      { type: "ExternalIP", address: expect.any(String) },
      { type: "InternalIP", address: "10.0.1.3" },
    ]);
  });

  test("HCLOUD_NETWORK by ID gives the same InternalIP; one that does not exist is an error naming it", async () => {
    const e = setUp();
    const { network } = await cluster(e.h, ["node-1"]);
    const byId = await instancesOn(e, { network: String(network) }).instanceMetadata(ctx, node("node-1"));
    expect(byId?.nodeAddresses).toContainEqual({ type: "InternalIP", address: "10.0.1.2" });
    const err = await rejection(() => instancesOn(e, { network: "k8z" }).instanceMetadata(ctx, node("node-1")));
    expect(err.message).toContain("HCLOUD_NETWORK=k8z: the project has no network with this name");
  });

  test("shutdown is the server being off; a running or starting server is not shut down", async () => {
    const e = setUp();
    const { ids } = await cluster(e.h, ["node-1"]);
    const instances = instancesOn(e);
    const n = node("node-1", providerID(`hcloud://${ids[0]}`));
    expect(await instances.instanceShutdown(ctx, n)).toBe(false);
    await e.h.call("POST", `/servers/${ids[0]}/actions/poweroff`);
    expect(await instances.instanceShutdown(ctx, n)).toBe(true);
    expect(await instances.instanceExists(ctx, n)).toBe(true);
  });

  test("a deleted server is gone: exists is false and metadata is InstanceNotFoundError", async () => {
    const e = setUp();
    const { ids } = await cluster(e.h, ["node-1"]);
    await e.h.call("DELETE", `/servers/${ids[0]}`);
    const instances = instancesOn(e);
    for (const n of [node("node-1", providerID(`hcloud://${ids[0]}`)), node("node-1")]) {
      expect(await instances.instanceExists(ctx, n)).toBe(false);
      expect(await rejection(() => instances.instanceMetadata(ctx, n))).toBeInstanceOf(InstanceNotFoundError);
    }
  });

  test.each([
    ["the API failing", "errors"],
    ["a wrong token's 401", "token"],
  ] as const)("%s never reads as gone", async (_, fault) => {
    const e = setUp();
    const { ids } = await cluster(e.h, ["node-1"]);
    if (fault === "errors") await e.h.call("PUT", "/_emulator/faults", { errorRate: 1 });
    const servers =
      fault === "token"
        ? new HcloudServers(createHcloudTransport({ token: "wrong-token-0123456789", endpoint: e.h.emulator.endpoint }))
        : e.servers;
    const instances = instancesOn({ ...e, servers });
    const err = await rejection(() => instances.instanceExists(ctx, node("node-1", providerID(`hcloud://${ids[0]}`))));
    expect(err.message).toStartWith('hcloud/instances.instanceExists node "node-1"');
    expect(err).not.toBeInstanceOf(InstanceNotFoundError);
  });
});

describe("Robot servers (ROBOT_ENABLED)", () => {
  test.each([
    ["hrobot://", (n: number) => `hrobot://${n}`],
    ["the Syself fork's hcloud://bm-", (n: number) => `hcloud://bm-${n}`],
    ["the name", undefined],
  ])("initialises a dedicated server found by %s", async (_, id) => {
    const e = setUp();
    const bm = e.robot.state.addServer({ name: "bm-1", product: "AX41-NVMe", dc: "NBG1-DC3" });
    const n = id ? node("bm-1", providerID(id(bm.number))) : node("bm-1");
    const m = await instancesOn(e).instanceMetadata(ctx, n);
    expect(m).toMatchObject({
      providerID: `hrobot://${bm.number}`,
      instanceType: "AX41-NVMe",
      zone: "nbg1-dc3",
      region: "nbg1",
      additionalLabels: { "instance.hetzner.cloud/provided-by": "robot" },
    });
  });

  test("shutdown is Robot's operating status 'shut off'", async () => {
    const e = setUp();
    const bm = e.robot.state.addServer({ name: "bm-1" });
    const n = node("bm-1", providerID(`hrobot://${bm.number}`));
    const instances = instancesOn(e);
    expect(await instances.instanceShutdown(ctx, n)).toBe(false);
    e.robot.state.updateServer(bm.number, { operatingStatus: "shut off" });
    expect(await instances.instanceShutdown(ctx, n)).toBe(true);
  });

  test.each([
    ["off", "Robot support is off: set ROBOT_ENABLED=true"],
    ["no-credentials", "ROBOT_ENABLED is set but ROBOT_USER and ROBOT_PASSWORD are not"],
  ] as const)("with Robot %s a Robot Node is an error, never gone", async (robot, says) => {
    const e = setUp();
    const bm = e.robot.state.addServer({ name: "bm-1" });
    const err = await rejection(() =>
      instancesOn(e, { robot }).instanceExists(ctx, node("bm-1", providerID(`hrobot://${bm.number}`))),
    );
    expect(err.message).toContain(says);
  });

  test("a Robot server that left the account, or now carries another name, is gone", async () => {
    const e = setUp();
    const left = e.robot.state.addServer({ name: "bm-1" });
    const renamed = e.robot.state.addServer({ name: "other-cluster-7" });
    e.robot.state.deleteServer(left.number);
    const instances = instancesOn(e);
    expect(await instances.instanceExists(ctx, node("bm-1", providerID(`hrobot://${left.number}`)))).toBe(false);
    expect(await instances.instanceExists(ctx, node("bm-2", providerID(`hrobot://${renamed.number}`)))).toBe(false);
  });

  describe("hccm's Warning events on Robot Nodes", () => {
    const warned = () => {
      const seen: string[] = [];
      const warnings: WarningRecorder<Node> = {
        warn: (n, reason, message) => void seen.push(`${n.metadata?.name} ${reason}: ${message}`),
      };
      return { seen, warnings };
    };
    const internal = (address: string) => ({ type: "InternalIP" as const, address });
    const rows: {
      name: string;
      forward?: boolean;
      family?: "ipv4" | "ipv6" | "dualstack";
      internal: (ip: string) => string[];
      want: (ip: string) => string[];
    }[] = [
      {
        name: "an InternalIP of the other family: MisconfiguredInternalIP",
        forward: true,
        internal: () => ["fd00::5"],
        want: () => [
          "bm-1 MisconfiguredInternalIP: InternalIP fd00::5 is IPv6 but HCLOUD_INSTANCES_ADDRESS_FAMILY is IPv4 only; not forwarded",
        ],
      },
      {
        name: "an InternalIP that is the server's ExternalIP: MisconfiguredInternalIP",
        forward: true,
        internal: (ip) => [ip, "10.0.0.5"],
        want: (ip) => [`bm-1 MisconfiguredInternalIP: InternalIP ${ip} is already an ExternalIP; not forwarded`],
      },
      { name: "a forwarded InternalIP: nothing", forward: true, internal: () => ["10.0.0.5"], want: () => [] },
      {
        name: "dual stack forwards both families: nothing",
        forward: true,
        family: "dualstack",
        internal: () => ["10.0.0.5", "fd00::5"],
        want: () => [],
      },
      {
        name: "ROBOT_FORWARD_INTERNAL_IPS=false: InternalIPs are not looked at, nothing",
        forward: false,
        internal: () => ["fd00::5"],
        want: () => [],
      },
    ];
    test.each(rows)("$name", async (row) => {
      const e = setUp();
      const bm = e.robot.state.addServer({ name: "bm-1" });
      const { seen, warnings } = warned();
      const instances = instancesOn(e, {
        forwardInternalIPs: row.forward ?? false,
        addressFamily: row.family ?? "ipv4",
        warnings,
      });
      const n = node("bm-1", providerID(`hrobot://${bm.number}`), addresses(...row.internal(bm.ip).map(internal)));
      await instances.instanceMetadata(ctx, n);
      expect(seen).toEqual(row.want(bm.ip));
    });

    test("a Robot server now named otherwise: PossibleNodeDeletion, once per lookup, one by one and in bulk", async () => {
      const e = setUp();
      const renamed = e.robot.state.addServer({ name: "other-cluster-7" });
      const kept = e.robot.state.addServer({ name: "bm-1" });
      const { seen, warnings } = warned();
      const instances = instancesOn(e, { warnings });
      const gone = node("bm-2", providerID(`hrobot://${renamed.number}`));
      const want = `bm-2 PossibleNodeDeletion: Robot server ${renamed.number} is now named "other-cluster-7", not "bm-2": the Node counts as gone for this cluster and may be deleted`;
      expect(await instances.instanceExists(ctx, gone)).toBe(false);
      expect(seen).toEqual([want]);
      seen.length = 0;
      const result = await instances.instanceMetadataBulk!(ctx, [
        gone,
        node("bm-1", providerID(`hrobot://${kept.number}`)),
      ]);
      expect(result.get("bm-2")).toBeNull();
      expect(seen).toEqual([want]);
    });

    test("a Robot server gone from the account: no PossibleNodeDeletion (nothing to mistake)", async () => {
      const e = setUp();
      const left = e.robot.state.addServer({ name: "bm-1" });
      e.robot.state.deleteServer(left.number);
      const { seen, warnings } = warned();
      expect(
        await instancesOn(e, { warnings }).instanceExists(ctx, node("bm-1", providerID(`hrobot://${left.number}`))),
      ).toBe(false);
      expect(seen).toEqual([]);
    });
  });

  test("a name both APIs carry is an error naming both servers", async () => {
    const e = setUp();
    const id = await createServer(e.h, "twin");
    const bm = e.robot.state.addServer({ name: "twin" });
    const err = await rejection(() => instancesOn(e).instanceMetadata(ctx, node("twin")));
    expect(err.message).toContain(`both Cloud server ${id} and Robot server ${bm.number} are named "twin"`);
  });
});

describe("bulk lookup", () => {
  test("a hybrid cluster of 120 Cloud and 2 Robot servers costs one paged listing per API", async () => {
    const e = setUp();
    const { ids } = await cluster(
      e.h,
      Array.from({ length: 120 }, (_, i) => `node-${i}`),
    );
    const bm = [e.robot.state.addServer({ name: "bm-0" }), e.robot.state.addServer({ name: "bm-1" })];
    e.robot.state.updateServer(bm[1]!.number, { operatingStatus: "shut off" });
    await e.h.call("POST", `/servers/${ids[3]}/actions/poweroff`);
    await e.h.call("DELETE", `/servers/${ids[4]}`);
    await e.h.call("DELETE", `/servers/${ids[5]}`);
    const nodes = [
      ...ids.map((id, i) => (i % 2 === 0 ? node(`node-${i}`, providerID(`hcloud://${id}`)) : node(`node-${i}`))),
      node("bm-0", providerID(`hrobot://${bm[0]!.number}`)),
      node("bm-1"),
    ];
    e.h.emulator.calls.reset();
    const robotCallsBefore = e.robot.calls.length;
    const result = await instancesOn(e, { network: "k8s" }).instanceMetadataBulk!(ctx, nodes);
    const cloudCalls = e.h.emulator.calls.snapshot();
    const robotCalls = e.robot.calls.slice(robotCallsBefore).map((c) => c.path);
    console.log(`bulk of ${nodes.length} Nodes: ${cloudCalls.total} Cloud API calls, ${robotCalls.length} Robot calls`);
    // 3 pages of servers, the network once, and each deleted server asked for on its own (by ID, by name).
    expect(cloudCalls.byRoute).toEqual({
      "GET /v1/servers": { calls: 4, failed: 0 },
      "GET /v1/networks": { calls: 1, failed: 0 },
      "GET /v1/servers/:id": { calls: 1, failed: 1 },
    });
    // Robot: its list, each server's power state, and its list again to confirm node-5's name is gone there too.
    expect(robotCalls.sort()).toEqual(["/reset/321", "/reset/322", "/server", "/server"]);
    expect(result.size).toBe(122);
    expect(result.get("node-4")).toBeNull();
    expect(result.get("node-5")).toBeNull();
    expect(result.get("node-3")?.shutdown).toBe(true);
    expect(result.get("node-6")?.shutdown).toBe(false);
    expect(result.get("node-7")?.metadata.nodeAddresses).toContainEqual({ type: "InternalIP", address: "10.0.1.9" });
    expect(result.get("bm-0")?.metadata.providerID).toBe(`hrobot://${bm[0]!.number}`);
    expect(result.get("bm-1")).toMatchObject({ shutdown: true, metadata: { providerID: `hrobot://${bm[1]!.number}` } });
  });

  test("Nodes it cannot answer for are left out for the one-by-one path", async () => {
    const e = setUp();
    const result = await instancesOn(e, { robot: "off" }).instanceMetadataBulk!(ctx, [
      node("bm-1", providerID("hrobot://321")),
      node("odd", providerID("aws:///eu-west-1a/i-1")),
      node("nothing-here"),
    ]);
    expect([...result.entries()]).toEqual([["nothing-here", null]]);
  });

  test("a full refresh of 1000 Nodes costs 20 calls, against 1000 for one call per Node", async () => {
    const e = setUp();
    const created = await e.h.call("POST", "/networks", {
      name: "k8s",
      ip_range: "10.0.0.0/16",
      subnets: [{ type: "cloud", network_zone: "eu-central", ip_range: "10.0.16.0/20" }],
    });
    const network: number = created.body.network.id;
    const nodes = Array.from({ length: 1000 }, (_, i) => {
      const { server } = createServerInWorld(e.h.emulator.world, {
        name: `node-${i}`,
        server_type: "cx22",
        networks: [network],
      });
      return node(`node-${i}`, providerID(`hcloud://${server.id}`));
    });
    const instances = instancesOn(e, { network: "k8s" });
    await instances.instanceMetadataBulk!(ctx, nodes.slice(0, 1)); // resolves HCLOUD_NETWORK once, as at start
    e.h.emulator.calls.reset();
    const result = await instances.instanceMetadataBulk!(ctx, nodes);
    const calls = e.h.emulator.calls.snapshot().total;
    console.log(`full refresh of ${nodes.length} Nodes: ${calls} Cloud API calls (one call per Node: ${nodes.length})`);
    expect([...result.values()].filter((r) => r !== null).length).toBe(1000);
    expect(calls).toBe(20);
  });
});
