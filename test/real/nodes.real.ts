/**
 * test/nodes.e2e.test.ts's scenarios against a real kube-apiserver (1.20.2, test/real/cluster.ts): the compiled
 * manager initialises the Nodes the simulated kubelets registered, taints a stopped machine's node, and deletes the
 * node of a machine that is gone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { type RealCluster, START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

const hasTaint = (n: Node | undefined, key: string) => (n?.spec?.taints ?? []).some((t) => t.key === key);
const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";

let cluster: RealCluster;
let manager: RunningProcess;

beforeAll(async () => {
  cluster = await startRealCluster({ nodes: 3 });
  manager = await cluster.startManager(["--controllers=cloud-node,cloud-node-lifecycle"]);
}, START_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
});

describe("cloud-node and cloud-node-lifecycle controllers, compiled, against a real API server", () => {
  test("tainted nodes get provider ID, addresses and labels, and lose the uninitialized taint", async () => {
    await poll(
      async () => {
        const nodes = (await cluster.client.list<Node>(Resources.nodes)).items;
        return nodes.length === 3 && nodes.every((n) => !hasTaint(n, Taints.uninitialized));
      },
      { timeoutMs: 60_000, message: `all nodes initialised; manager said:\n${manager.output()}` },
    );
    const node = await cluster.node("node-1");
    expect(node?.spec?.providerID).toBe(`sandbox://${await cluster.cloud.machineId("node-1")}`);
    expect(node?.metadata?.labels?.[Labels.zone]).toBe("zone-a");
    expect(node?.metadata?.labels?.[Labels.region]).toBe("sandbox-1");
    expect(node?.metadata?.labels?.[Labels.instanceType]).toBe("sb-small");
    await poll(async () => ((await cluster.node("node-1"))?.status?.addresses ?? []).length === 3, {
      message: `node-1's three addresses; manager said:\n${manager.output()}`,
    });
    const types = ((await cluster.node("node-1"))?.status?.addresses ?? []).map((a) => a.type).sort();
    expect(types).toEqual(["ExternalIP", "Hostname", "InternalIP"]);
    const synced = (await cluster.events("node-1")).find((e) => e.reason === "Synced");
    expect(synced?.message).toBe("Node synced successfully");
  });

  test("a stopped machine's node gets the shutdown taint, removed once it runs and is Ready again", async () => {
    const id = await cluster.cloud.machineId("node-2");
    await cluster.cloud.call("PATCH", `/v1/machines/${id}`, { state: "stopped" });
    await poll(async () => hasTaint(await cluster.node("node-2"), Taints.shutdown), {
      message: `shutdown taint on node-2; manager said:\n${manager.output()}`,
    });
    await cluster.cloud.call("PATCH", `/v1/machines/${id}`, { state: "running" });
    await poll(
      async () => {
        const n = await cluster.node("node-2");
        return ready(n) && !hasTaint(n, Taints.shutdown);
      },
      { message: `node-2 Ready without the shutdown taint; manager said:\n${manager.output()}` },
    );
  });

  test("a deleted machine makes its NotReady node go away, with the DeletingNode event", async () => {
    await cluster.cloud.call("DELETE", `/v1/machines/${await cluster.cloud.machineId("node-3")}`);
    await poll(async () => (await cluster.node("node-3")) === undefined, {
      message: `node-3 deleted; manager said:\n${manager.output()}`,
    });
    const deleting = (await cluster.events("node-3")).find((e) => e.reason === "DeletingNode");
    expect(deleting?.message).toBe("Deleting node node-3 because it does not exist in the cloud provider");
  });
});
