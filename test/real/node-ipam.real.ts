/**
 * Node IPAM on a real kube-apiserver (1.20.2, test/real/cluster.ts): the compiled manager runs every controller but
 * the node lifecycle one (it would delete the Nodes made here, which have no machine) with --allocate-node-cidrs and
 * a dual-stack --cluster-cidr. Nodes created without pod CIDRs get distinct subnets of both ranges; a restarted
 * manager rebuilds its occupancy from the Nodes and hands out none twice; a full range is reported with a
 * `CIDRNotAvailable` event; a deleted Node's subnets go to the Node that waited.
 *
 * A 1.20 server keeps only the first of a Node's `spec.podCIDRs` unless its IPv6DualStack gate (alpha, off by
 * default in 1.20) is on: the server here runs with it on, as a dual-stack 1.20 cluster must.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { type RealCluster, START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

/** Four IPv4 /24s (the kubelet's node holds the first) and a range of IPv6 /64s. */
const CLUSTER_CIDR = "10.128.0.0/22,fd00:10:128::/48";
const FLAGS = ["--allocate-node-cidrs=true", "--controllers=*,-cloud-node-lifecycle"];

let cluster: RealCluster;
let manager: RunningProcess | undefined;

beforeAll(async () => {
  cluster = await startRealCluster({ nodes: 1, apiServerArgs: ["--feature-gates=IPv6DualStack=true"] });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
});

const output = () => manager?.output() ?? "";
const bare = (name: string): Node => ({ metadata: { name, labels: { "real/node-ipam": "true" } }, spec: {} });
const podCIDRsOf = async (name: string) => (await cluster.node(name))?.spec?.podCIDRs;
const start = async () => {
  manager = await cluster.startManager(FLAGS, { clusterCIDR: CLUSTER_CIDR });
  await poll(() => output().includes('started "node-ipam-controller"'), {
    timeoutMs: 60_000,
    message: `the node IPAM controller started; manager said:\n${output()}`,
  });
};
const stop = async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
};
const waitForCIDRs = async (name: string) => {
  await poll(async () => ((await podCIDRsOf(name)) ?? []).length > 0, {
    timeoutMs: 60_000,
    message: `pod CIDRs on ${name}; manager said:\n${output()}`,
  });
  return (await podCIDRsOf(name)) ?? [];
};

describe("node IPAM controller, compiled, against a real API server", () => {
  const given = new Map<string, string[]>();
  let existing: string[] = [];

  test("Nodes without pod CIDRs get distinct subnets of both cluster CIDRs, none the kubelet's Node holds", async () => {
    existing = await waitForCIDRs("node-1");
    expect(existing[0]).toBe("10.128.0.0/24");
    await start();
    for (const name of ["ipam-a", "ipam-b"]) await cluster.client.create(Resources.nodes, bare(name));
    for (const name of ["ipam-a", "ipam-b"]) given.set(name, await waitForCIDRs(name));
    const ipv4 = [...given.values()].map((c) => c[0]);
    expect(new Set([...ipv4, existing[0]]).size).toBe(3);
    for (const cidrs of given.values()) {
      // Both families stored: the server kept the dual-stack pair the manager wrote.
      expect(cidrs).toHaveLength(2);
      expect(cidrs[0]).toMatch(/^10\.128\.[0-3]\.0\/24$/);
      expect(cidrs[1]).toMatch(/^fd00:10:128:([0-9a-f]+:)?:\/64$/);
    }
    const ipv6 = [...given.values(), existing].flatMap((c) => c.slice(1));
    expect(new Set(ipv6).size).toBe(ipv6.length);
    expect((await cluster.node("ipam-a"))?.spec?.podCIDR).toBe(given.get("ipam-a")?.[0] as string);
    expect(await podCIDRsOf("node-1")).toEqual(existing);
  });

  test("a restarted manager rebuilds its occupancy from the Nodes: the new Node gets the one subnet left", async () => {
    await stop();
    await start();
    await cluster.client.create(Resources.nodes, bare("ipam-c"));
    const c = await waitForCIDRs("ipam-c");
    expect(c[0]).toBe("10.128.3.0/24");
    expect([...given.values(), existing].map((cidrs) => cidrs[1])).not.toContain(c[1]);
    for (const [name, cidrs] of given) expect(await podCIDRsOf(name)).toEqual(cidrs);
    given.set("ipam-c", c);
  });

  test("a full range records CIDRNotAvailable; a deleted Node's subnets then go to the waiting Node", async () => {
    await cluster.client.create(Resources.nodes, bare("ipam-d"));
    await poll(async () => (await cluster.events("ipam-d")).some((e) => e.reason === "CIDRNotAvailable"), {
      timeoutMs: 60_000,
      message: `a CIDRNotAvailable event for ipam-d; manager said:\n${output()}`,
    });
    const event = (await cluster.events("ipam-d")).find((e) => e.reason === "CIDRNotAvailable");
    expect(event?.message).toBe("Node ipam-d status is now: CIDRNotAvailable");
    expect(event?.type).toBe("Normal");
    expect(await podCIDRsOf("ipam-d")).toBeUndefined();

    await cluster.client.delete(Resources.nodes, "ipam-a");
    const d = await waitForCIDRs("ipam-d");
    expect(d[0]).toBe(given.get("ipam-a")?.[0] as string);
    expect(manager?.proc.exitCode).toBeNull();
  });
});
