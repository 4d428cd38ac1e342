import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { Registry } from "prom-client";
import type { Node } from "../../kube/objects.ts";
import { Annotations } from "../../kube/well-known.ts";
import type { InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { providerApiMetrics } from "../kit/metrics.ts";
import { createInstances, type InstancesOptions } from "./instances.ts";
import { type ConfigMapMachines, Inventory } from "./inventory.ts";
import { type Machine, toMachine } from "./machine-schema.ts";
import { type Connect, tcpConnect } from "./probe.ts";
import { formatProviderID } from "./provider-id.ts";
import { node } from "./testing.ts";

const ctx = { signal: new AbortController().signal };
const machine = (name: string, body: Parameters<typeof toMachine>[1] = {}): Machine =>
  toMachine(name, body, formatProviderID);
const node1 = machine("node-1", {
  addresses: { InternalIP: ["10.0.0.11"], Hostname: ["node-1.lab"] },
  zone: "rack-1",
  region: "dc-1",
  instanceType: "r640",
  labels: { "example.com/row": "3" },
});
const custom = machine("node-2", { providerID: "metal://rack1-slot2", addresses: { InternalIP: ["10.0.0.12"] } });
const bare = machine("node-3");

function instances(inv: Inventory, options: Partial<InstancesOptions> = {}): InstancesV2 {
  return createInstances(inv, {
    requireInventoryEntry: false,
    deleteNodesMissingFromInventory: false,
    connect: tcpConnect,
    ...options,
  });
}

const selfReported = node("node-9", {
  addresses: [
    ["InternalIP", "10.0.0.99"],
    ["Hostname", "node-9"],
  ],
  labels: { "topology.kubernetes.io/zone": "z9", "node.kubernetes.io/instance-type": "t9" },
});

describe("metadata: the inventory first, then what the node reports", () => {
  const inv = new Inventory([node1, custom, bare]);
  test.each<[string, Node, object]>([
    [
      "an entry matched by name gives everything it has",
      node("node-1"),
      {
        providerID: "metal://node-1",
        instanceType: "r640",
        nodeAddresses: [
          { type: "InternalIP", address: "10.0.0.11" },
          { type: "Hostname", address: "node-1.lab" },
        ],
        zone: "rack-1",
        region: "dc-1",
        additionalLabels: { "example.com/row": "3" },
      },
    ],
    [
      "an entry with its own provider ID is matched by it",
      node("whatever", { providerID: "metal://rack1-slot2" }),
      { providerID: "metal://rack1-slot2", nodeAddresses: [{ type: "InternalIP", address: "10.0.0.12" }] },
    ],
    [
      "a node whose provider ID is not in the inventory is not matched by name",
      node("node-2", { providerID: "metal://node-2", addresses: [["InternalIP", "10.9.9.9"]] }),
      { providerID: "metal://node-2", nodeAddresses: [{ type: "InternalIP", address: "10.9.9.9" }] },
    ],
    [
      "fields the entry leaves out come from the node",
      node("node-3", { addresses: [["InternalIP", "10.0.0.13"]], labels: { "topology.kubernetes.io/region": "r3" } }),
      {
        providerID: "metal://node-3",
        instanceType: "",
        nodeAddresses: [{ type: "InternalIP", address: "10.0.0.13" }],
        zone: "",
        region: "r3",
      },
    ],
    [
      "a node without an entry is initialised from what it reports",
      selfReported,
      {
        providerID: "metal://node-9",
        instanceType: "t9",
        nodeAddresses: [
          { type: "InternalIP", address: "10.0.0.99" },
          { type: "Hostname", address: "node-9" },
        ],
        zone: "z9",
        region: "",
      },
    ],
    [
      "before kubelet reports addresses, its --node-ip annotation is the InternalIP",
      node("node-8", { annotations: { [Annotations.providedNodeIP]: "10.0.0.8,fd00::8" } }),
      {
        nodeAddresses: [
          { type: "InternalIP", address: "10.0.0.8" },
          { type: "InternalIP", address: "fd00::8" },
        ],
      },
    ],
  ])("%s", async (_, n, want) => {
    expect(await instances(inv).instanceMetadata(ctx, n)).toMatchObject(want);
  });

  test("a ConfigMap entry replaces the cloud-config's entry of the same name", async () => {
    const inv = new Inventory([node1], "kube-system/metal-inventory");
    inv.setConfigMap({ machines: [machine("node-1", { zone: "rack-7" })], invalid: new Map() });
    const meta = await instances(inv).instanceMetadata(ctx, node("node-1"));
    expect(meta).toMatchObject({ zone: "rack-7", region: "", instanceType: "" });
  });

  test("an unreadable ConfigMap entry blocks the node with the problems, and never deletes it", async () => {
    const inv = new Inventory([node1], "kube-system/metal-inventory");
    inv.setConfigMap({ machines: [], invalid: new Map([["node-1", ["zone: must be a valid label value"]]]) });
    const strict = instances(inv, { deleteNodesMissingFromInventory: true });
    expect(strict.instanceMetadata(ctx, node("node-1"))).rejects.toThrow(
      'the inventory entry for node "node-1" is invalid: zone: must be a valid label value',
    );
    expect(await strict.instanceExists(ctx, node("node-1", { providerID: "metal://node-1" }))).toBe(true);
  });

  test("requireInventoryEntry leaves a node without an entry uninitialised, saying where to add it", async () => {
    const inv = new Inventory([node1], "kube-system/metal-inventory");
    inv.setConfigMap({ machines: [], invalid: new Map() });
    const err = await instances(inv, { requireInventoryEntry: true, configMapName: "kube-system/metal-inventory" })
      .instanceMetadata(ctx, selfReported)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InstanceNotFoundError);
    expect((err as Error).message).toBe(
      'instance not found: node "node-9" has no inventory entry and requireInventoryEntry is true; add it to inventory.machines in the cloud-config or the ConfigMap kube-system/metal-inventory',
    );
  });
});

describe("existence: nobody is deleted for being undescribed unless asked", () => {
  const loaded: ConfigMapMachines = { machines: [], invalid: new Map() };
  test.each<[string, boolean, ConfigMapMachines | null | "unread" | "none", boolean | RegExp]>([
    ["an entry exists", true, "none", true],
    ["no entry, default settings", false, "none", true],
    ["no entry, deleteNodesMissingFromInventory", true, "none", false],
    ["no entry, deletion on, ConfigMap read", true, loaded, false],
    ["no entry, deletion on, ConfigMap not read yet", true, "unread", /has not been read yet/],
    ["no entry, deletion on, ConfigMap missing", true, null, /ConfigMap kube-system\/inv does not exist/],
  ])("%s", async (name, deletion, configMap, want) => {
    const inv = new Inventory([node1], configMap === "none" ? undefined : "kube-system/inv");
    if (configMap !== "none" && configMap !== "unread") inv.setConfigMap(configMap);
    const subject = name.startsWith("an entry") ? node("node-1") : node("gone", { providerID: "metal://gone" });
    const answer = instances(inv, { deleteNodesMissingFromInventory: deletion }).instanceExists(ctx, subject);
    if (want instanceof RegExp) expect(answer).rejects.toThrow(want);
    else expect(await answer).toBe(want);
  });
});

describe("shutdown by TCP probe", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function listen(): Promise<number> {
    server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return (server.address() as { port: number }).port;
  }
  async function closedPort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    return port;
  }
  const local = (name: string, port?: number) =>
    machine(name, { addresses: { InternalIP: ["127.0.0.1"] }, ...(port ? { probe: { port } } : {}) });

  test("without shutdownProbe nothing is probed and nothing is shut down", async () => {
    let calls = 0;
    const connect: Connect = async () => void calls++;
    expect(await instances(new Inventory([local("a")]), { connect }).instanceShutdown(ctx, node("a"))).toBe(false);
    expect(calls).toBe(0);
  });

  test("a port that answers means running; a refused one means shut down", async () => {
    const open = await listen();
    const closed = await closedPort();
    const inv = new Inventory([local("up", open), local("down", closed)]);
    const subject = instances(inv, { shutdownProbe: { port: 1, timeoutMs: 10_000 } });
    expect(await subject.instanceShutdown(ctx, node("up"))).toBe(false);
    expect(await subject.instanceShutdown(ctx, node("down"))).toBe(true);
  });

  test("the global port applies, and a node without an entry is probed at its own InternalIP", async () => {
    const open = await listen();
    const subject = instances(new Inventory([]), { shutdownProbe: { port: open, timeoutMs: 10_000 } });
    expect(await subject.instanceShutdown(ctx, node("n", { addresses: [["InternalIP", "127.0.0.1"]] }))).toBe(false);
    expect(await subject.instanceShutdown(ctx, node("no-address"))).toBe(false);
  });

  test("silence until the timeout means shut down", async () => {
    const silent: Connect = () => new Promise<void>(() => {});
    const subject = instances(new Inventory([local("a")]), {
      connect: silent,
      shutdownProbe: { port: 22, timeoutMs: 1 },
    });
    expect(await subject.instanceShutdown(ctx, node("a"))).toBe(true);
  });

  test("a stopping controller gets a rejection, not a shutdown", async () => {
    const silent: Connect = () => new Promise<void>(() => {});
    const stop = new AbortController();
    const subject = instances(new Inventory([local("a")]), {
      connect: silent,
      shutdownProbe: { port: 22, timeoutMs: 60_000 },
    });
    const answer = subject.instanceShutdown({ signal: stop.signal }, node("a"));
    stop.abort(new Error("stopping"));
    expect(answer).rejects.toThrow("stopping");
  });

  test("each finished probe is recorded as the probe operation; one without an answer as an error", async () => {
    const registry = new Registry();
    const refused: Connect = async () => {
      throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
    };
    const inv = new Inventory([local("up"), local("down")]);
    const probe = { port: 22, timeoutMs: 1000 };
    const metrics = providerApiMetrics(registry, "metal");
    await instances(inv, { connect: async () => {}, shutdownProbe: probe, metrics }).instanceShutdown(ctx, node("up"));
    await instances(inv, { connect: refused, shutdownProbe: probe, metrics }).instanceShutdown(ctx, node("down"));
    const text = await registry.metrics();
    expect(text).toContain('cloudprovider_metal_api_request_duration_seconds_count{request="probe"} 2');
    expect(text).toContain('cloudprovider_metal_api_request_errors{request="probe"} 1');
  });

  test("the bulk answer probes only NotReady nodes and reports missing ones only when deletion is on", async () => {
    const probed: string[] = [];
    const connect: Connect = async (host) => {
      probed.push(host);
      throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
    };
    const inv = new Inventory([
      machine("ready", { addresses: { InternalIP: ["10.0.0.1"] } }),
      machine("sick", { addresses: { InternalIP: ["10.0.0.2"] } }),
    ]);
    const subject = instances(inv, {
      connect,
      shutdownProbe: { port: 22, timeoutMs: 1000 },
      deleteNodesMissingFromInventory: true,
    });
    const answer = await subject.instanceMetadataBulk!(ctx, [
      node("ready", { ready: true }),
      node("sick", { ready: false }),
      node("gone", { providerID: "metal://gone", ready: false }),
    ]);
    expect(probed).toEqual(["10.0.0.2"]);
    expect(answer.get("ready")).toMatchObject({ shutdown: false, metadata: { providerID: "metal://ready" } });
    expect(answer.get("sick")).toMatchObject({ shutdown: true });
    expect(answer.get("gone")).toBeNull();
  });
});
