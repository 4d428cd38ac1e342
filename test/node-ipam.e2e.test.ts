/**
 * End to end, node IPAM: the compiled manager runs only the node IPAM controller with --allocate-node-cidrs against
 * the sandbox, whose own Node already has a pod CIDR. Nodes created without pod CIDRs get distinct subnets; a
 * restart keeps them and hands out none twice; a full range is reported, and a deleted Node's subnet is reused.
 * With --cidr-allocator-type=CloudAllocator the sandbox cloud's per-machine ranges are written instead.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { poll, type RunningProcess } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

let sandbox: Sandbox;
let manager: RunningProcess | undefined;

/** Four IPv4 /24s (one held by the sandbox's node), and a dual-stack IPv6 range of /64s. */
const CLUSTER_CIDR = "10.128.0.0/22,fd00:10:128::/48";
const FLAGS = ["--allocate-node-cidrs=true", "--controllers=nodeipam"];

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 1 });
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
});

const output = () => manager?.output() ?? "";
const bare = (name: string): Node => ({ metadata: { name, labels: { "e2e/node-ipam": "true" } }, spec: {} });
const podCIDRsOf = async (name: string) => (await sandbox.node(name))?.spec?.podCIDRs;
const start = async () => {
  manager = await sandbox.startManager(FLAGS, { clusterCIDR: CLUSTER_CIDR });
  await poll(() => output().includes('started "node-ipam-controller"'), {
    message: `the node IPAM controller started; manager said:\n${output()}`,
  });
};
const stop = async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
};
const waitForCIDRs = async (name: string) => {
  await poll(async () => ((await podCIDRsOf(name)) ?? []).length > 0, {
    timeoutMs: 30_000,
    message: `pod CIDRs on ${name}; manager said:\n${output()}`,
  });
  return (await podCIDRsOf(name)) ?? [];
};

describe("node IPAM controller, compiled, against the sandbox", () => {
  const given = new Map<string, string[]>();

  test("Nodes without pod CIDRs get distinct subnets of every cluster CIDR, none the existing Node holds", async () => {
    // The sandbox's kubelet registers its node in the background: wait for it.
    const existing = await waitForCIDRs("node-1");
    expect(existing[0]).toBe("10.128.0.0/24");
    await start();
    for (const name of ["ipam-a", "ipam-b"]) await sandbox.client.create(Resources.nodes, bare(name));
    for (const name of ["ipam-a", "ipam-b"]) given.set(name, await waitForCIDRs(name));
    const ipv4 = [...given.values()].map((c) => c[0]);
    expect(new Set([...ipv4, existing[0]]).size).toBe(3);
    for (const cidrs of given.values()) {
      expect(cidrs).toHaveLength(2);
      expect(cidrs[0]).toMatch(/^10\.128\.[0-3]\.0\/24$/);
      expect(cidrs[1]).toMatch(/^fd00:10:128:([0-9a-f]+:)?:\/64$/);
    }
    expect(new Set([...given.values()].map((c) => c[1])).size).toBe(2);
    expect((await sandbox.node("ipam-a"))?.spec?.podCIDR).toBe(given.get("ipam-a")?.[0] as string);
    expect(await podCIDRsOf("node-1")).toEqual(existing);
  });

  test("after a restart the Nodes keep their subnets and a new Node gets the one left", async () => {
    await stop();
    await start();
    await sandbox.client.create(Resources.nodes, bare("ipam-c"));
    const c = await waitForCIDRs("ipam-c");
    expect(c[0]).toBe("10.128.3.0/24");
    for (const [name, cidrs] of given) expect(await podCIDRsOf(name)).toEqual(cidrs);
    given.set("ipam-c", c);
  });

  test("a full range records CIDRNotAvailable; a deleted Node's subnet then goes to the waiting Node", async () => {
    await sandbox.client.create(Resources.nodes, bare("ipam-d"));
    await poll(async () => (await sandbox.events("ipam-d")).some((e) => e.reason === "CIDRNotAvailable"), {
      timeoutMs: 30_000,
      message: `a CIDRNotAvailable event for ipam-d; manager said:\n${output()}`,
    });
    const event = (await sandbox.events("ipam-d")).find((e) => e.reason === "CIDRNotAvailable");
    expect(event?.message).toBe("Node ipam-d status is now: CIDRNotAvailable");
    expect(await podCIDRsOf("ipam-d")).toBeUndefined();

    await sandbox.client.delete(Resources.nodes, "ipam-a");
    const d = await waitForCIDRs("ipam-d");
    expect(d[0]).toBe(given.get("ipam-a")?.[0] as string);
    expect(manager?.proc.exitCode).toBeNull();
  });
});

describe("node IPAM with --cidr-allocator-type=CloudAllocator, compiled, against the sandbox", () => {
  const machine = async (name: string, podCIDRs?: string[]) =>
    (
      await sandbox.cloud.call<{ machine: { id: string; providerID: string } }>("POST", "/v1/machines", {
        name,
        ...(podCIDRs ? { podCIDRs } : {}),
      })
    ).machine;
  const cloudNode = (name: string, providerID: string): Node => ({ ...bare(name), spec: { providerID } });

  test("Nodes get the ranges the cloud routes to their machines; a machine without one is reported until it has one", async () => {
    await stop();
    const a = await machine("cloud-a", ["10.200.1.0/24", "fd00:10:200:1::/64"]);
    const b = await machine("cloud-b");
    manager = await sandbox.startManager([...FLAGS, "--cidr-allocator-type=CloudAllocator"], { clusterCIDR: "" });
    await poll(() => output().includes("assigning node pod CIDRs from the sandbox cloud"), {
      message: `the cloud allocator started; manager said:\n${output()}`,
    });
    await sandbox.client.create(Resources.nodes, cloudNode("cloud-a", a.providerID));
    await sandbox.client.create(Resources.nodes, cloudNode("cloud-b", b.providerID));
    expect(await waitForCIDRs("cloud-a")).toEqual(["10.200.1.0/24", "fd00:10:200:1::/64"]);
    expect((await sandbox.node("cloud-a"))?.spec?.podCIDR).toBe("10.200.1.0/24");
    await poll(async () => (await sandbox.events("cloud-b")).some((e) => e.reason === "CIDRNotAvailable"), {
      timeoutMs: 30_000,
      message: `a CIDRNotAvailable event for cloud-b; manager said:\n${output()}`,
    });
    expect(await podCIDRsOf("cloud-b")).toBeUndefined();
    // The cloud assigns a range later: the retry writes it.
    await sandbox.cloud.call("PATCH", `/v1/machines/${b.id}`, { podCIDRs: ["10.200.2.0/24"] });
    expect(await waitForCIDRs("cloud-b")).toEqual(["10.200.2.0/24"]);
    // Nodes that had pod CIDRs keep them.
    expect(await podCIDRsOf("node-1")).toEqual(["10.128.0.0/24"]);
    expect(manager?.proc.exitCode).toBeNull();
  });

  test("a provider that assigns no pod CIDRs is refused at start, naming the flag", async () => {
    await stop();
    manager = await sandbox.startManager(
      // metal needs no cloud-config; a later flag overrides the harness's.
      [...FLAGS, "--cidr-allocator-type=CloudAllocator", "--cloud-provider=metal", "--cloud-config="],
      { clusterCIDR: "" },
    );
    expect(await manager.exited).toBe(1);
    expect(output()).toContain(
      "--cidr-allocator-type=CloudAllocator: the metal provider does not assign pod CIDRs (it has no cidrAllocator)",
    );
  });
});
