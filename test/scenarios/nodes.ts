/**
 * The cloud-node and cloud-node-lifecycle controllers' scenarios, compiled: the manager initialises the Nodes the
 * simulated kubelets registered (provider ID, zone, region and instance-type labels, addresses; the uninitialized
 * taint removed), taints a stopped machine's node with the shutdown taint until it runs again, and deletes the
 * NotReady node of a machine that is gone. The tests run in order on one cluster; node-2 and node-3 are changed.
 */
import { expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Node } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import type { TestCluster } from "../support/cluster.ts";
import { poll, type RunningProcess } from "../support/processes.ts";
import { describeOnTier, type ScenarioTier } from "./tier.ts";

export const NODE_CONTROLLERS = "--controllers=cloud-node,cloud-node-lifecycle";

export const hasTaint = (n: Node | undefined, key: string) => (n?.spec?.taints ?? []).some((t) => t.key === key);
export const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";

/** The scenarios' cluster and manager (set before the first test), also for a tier's own tests. */
export class NodesRun {
  cluster!: TestCluster;
  /** The manager running the controllers; a test that restarts it sets the new one. */
  manager!: RunningProcess;
}

export interface NodesTier extends ScenarioTier<NodesRun> {
  /** How many machines (and Nodes) the cluster starts with; at least 3, for the scenarios' node-1 to node-3. */
  readonly nodes: number;
}

export function describeNodeScenarios(tier: NodesTier): void {
  describeOnTier(
    tier,
    new NodesRun(),
    {
      nodes: tier.nodes,
      async ready(run) {
        run.manager = await run.cluster.startManager([NODE_CONTROLLERS]);
      },
    },
    (run) => sharedScenarios(run, tier.nodes),
  );
}

function sharedScenarios(run: NodesRun, nodeCount: number): void {
  const said = () => `manager said:\n${run.manager.output()}`;

  test("tainted nodes get provider ID, addresses and labels, and lose the uninitialized taint", async () => {
    const { cluster } = run;
    await poll(
      async () => {
        const nodes = (await cluster.client.list<Node>(Resources.nodes)).items;
        return nodes.length === nodeCount && nodes.every((n) => !hasTaint(n, Taints.uninitialized));
      },
      { timeoutMs: 60_000, message: `all nodes initialised; ${said()}` },
    );
    const machineId = await cluster.cloud.machineId("node-1");
    const node = await cluster.node("node-1");
    expect(node?.spec?.providerID).toBe(`sandbox://${machineId}`);
    expect(node?.metadata?.labels?.[Labels.zone]).toBe("zone-a");
    expect(node?.metadata?.labels?.[Labels.zoneDeprecated]).toBe("zone-a");
    expect(node?.metadata?.labels?.[Labels.region]).toBe("sandbox-1");
    expect(node?.metadata?.labels?.[Labels.instanceType]).toBe("sb-small");
    // The kubelet registers with its Hostname only; the cloud's addresses come in one write.
    await poll(
      async () => ((await cluster.node("node-1"))?.status?.addresses ?? []).some((a) => a.type === "InternalIP"),
      { timeoutMs: 20_000, message: `node-1 addresses; ${said()}` },
    );
    const types = ((await cluster.node("node-1"))?.status?.addresses ?? []).map((a) => a.type).sort();
    expect(types).toEqual(["ExternalIP", "Hostname", "InternalIP"]);
    // Events are written by the recorder's queue after the node: wait for it rather than race it.
    const synced = async () => (await cluster.events("node-1")).find((e) => e.reason === "Synced");
    await poll(async () => (await synced()) !== undefined, { message: `node-1's Synced event; ${said()}` });
    const event = await synced();
    expect(event?.message).toBe("Node synced successfully");
    expect(event?.involvedObject?.apiVersion).toBe("v1");
  });

  test("a stopped machine's node gets the shutdown taint, removed once it runs and is Ready again", async () => {
    const { cluster } = run;
    const id = await cluster.cloud.machineId("node-2");
    await cluster.cloud.call("PATCH", `/v1/machines/${id}`, { state: "stopped" });
    await poll(async () => hasTaint(await cluster.node("node-2"), Taints.shutdown), {
      timeoutMs: 30_000,
      message: `shutdown taint on node-2; ${said()}`,
    });
    const tainted = await cluster.node("node-2");
    expect(tainted?.spec?.taints?.find((t) => t.key === Taints.shutdown)?.effect).toBe("NoSchedule");
    await cluster.cloud.call("PATCH", `/v1/machines/${id}`, { state: "running" });
    await poll(
      async () => {
        const n = await cluster.node("node-2");
        return ready(n) && !hasTaint(n, Taints.shutdown);
      },
      { timeoutMs: 30_000, message: `node-2 Ready without the shutdown taint; ${said()}` },
    );
  });

  test("a deleted machine makes its NotReady node go away, with the DeletingNode event", async () => {
    const { cluster } = run;
    await cluster.cloud.call("DELETE", `/v1/machines/${await cluster.cloud.machineId("node-3")}`);
    await poll(async () => (await cluster.node("node-3")) === undefined, {
      timeoutMs: 30_000,
      message: `node-3 deleted; ${said()}`,
    });
    // The recorder writes from its queue: the event can land just after the node is gone.
    const find = async () => (await cluster.events("node-3")).find((e) => e.reason === "DeletingNode");
    await poll(async () => (await find()) !== undefined, { message: `node-3's DeletingNode event; ${said()}` });
    const deleting = await find();
    expect(deleting?.type).toBe("Normal");
    expect(deleting?.message).toBe("Deleting node node-3 because it does not exist in the cloud provider");
  });
}
