/**
 * Issue 5 end to end: the compiled all-in-one runs the sandbox without controllers, a second compiled process
 * runs them with operator flags, and machines are changed through the simulated cloud's REST API.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { Labels, Taints } from "../kube/well-known.ts";
import { type RunningProcess, waitFor } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

const hasTaint = (n: Node | undefined, key: string) => (n?.spec?.taints ?? []).some((t) => t.key === key);
const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";

let sandbox: Sandbox;
let manager: RunningProcess;

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 4 });
  manager = await sandbox.startManager(["--controllers=cloud-node,cloud-node-lifecycle"]);
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
});

describe("cloud-node and cloud-node-lifecycle controllers, compiled, against the sandbox", () => {
  test("tainted nodes get provider ID, addresses and labels, and lose the uninitialized taint", async () => {
    await waitFor(
      async () => {
        const nodes = (await sandbox.client.list<Node>(Resources.nodes)).items;
        return nodes.length === 4 && nodes.every((n) => !hasTaint(n, Taints.uninitialized));
      },
      { timeoutMs: 60_000, message: `all nodes initialised; manager said:\n${manager.output()}` },
    );
    const machineId = await sandbox.cloud.machineId("node-1");
    const node = await sandbox.node("node-1");
    expect(node?.spec?.providerID).toBe(`sandbox://${machineId}`);
    expect(node?.metadata?.labels?.[Labels.zone]).toBe("zone-a");
    expect(node?.metadata?.labels?.[Labels.zoneDeprecated]).toBe("zone-a");
    expect(node?.metadata?.labels?.[Labels.region]).toBe("sandbox-1");
    expect(node?.metadata?.labels?.[Labels.instanceType]).toBe("sb-small");
    await waitFor(
      async () => ((await sandbox.node("node-1"))?.status?.addresses ?? []).some((a) => a.type === "InternalIP"),
      {
        message: "node-1 addresses",
      },
    );
    const types = ((await sandbox.node("node-1"))?.status?.addresses ?? []).map((a) => a.type).sort();
    expect(types).toEqual(["ExternalIP", "Hostname", "InternalIP"]);
    const synced = (await sandbox.events("node-1")).find((e) => e.reason === "Synced");
    expect(synced?.message).toBe("Node synced successfully");
    expect(synced?.involvedObject?.apiVersion).toBe("v1");
  });

  test("a stopped machine's node gets the shutdown taint, removed once it runs and is Ready again", async () => {
    const id = await sandbox.cloud.machineId("node-2");
    await sandbox.cloud.call("PATCH", `/v1/machines/${id}`, { state: "stopped" });
    await waitFor(async () => hasTaint(await sandbox.node("node-2"), Taints.shutdown), {
      timeoutMs: 30_000,
      message: "shutdown taint on node-2",
    });
    const tainted = await sandbox.node("node-2");
    expect(tainted?.spec?.taints?.find((t) => t.key === Taints.shutdown)?.effect).toBe("NoSchedule");
    await sandbox.cloud.call("PATCH", `/v1/machines/${id}`, { state: "running" });
    await waitFor(
      async () => {
        const n = await sandbox.node("node-2");
        return ready(n) && !hasTaint(n, Taints.shutdown);
      },
      { timeoutMs: 30_000, message: "node-2 Ready without the shutdown taint" },
    );
  });

  test("a deleted machine makes its NotReady node go away, with the DeletingNode event", async () => {
    const id = await sandbox.cloud.machineId("node-3");
    await sandbox.cloud.call("DELETE", `/v1/machines/${id}`);
    await waitFor(async () => (await sandbox.node("node-3")) === undefined, {
      timeoutMs: 30_000,
      message: "node-3 deleted",
    });
    const deleting = (await sandbox.events("node-3")).find((e) => e.reason === "DeletingNode");
    expect(deleting?.type).toBe("Normal");
    expect(deleting?.message).toBe("Deleting node node-3 because it does not exist in the cloud provider");
  });

  test("a Ready node is never deleted, even when its machine is gone; NotReady, it is", async () => {
    // Hold node-4 Ready while its machine is gone: stop the controllers, delete the machine, wait for the
    // simulated kubelet to report Unknown (it writes only on change), then write Ready=True ourselves.
    manager.proc.kill("SIGKILL");
    await manager.exited;
    await sandbox.cloud.call("DELETE", `/v1/machines/${await sandbox.cloud.machineId("node-4")}`);
    await waitFor(async () => !ready(await sandbox.node("node-4")), { message: "node-4 reported NotReady" });
    const setReady = (status: "True" | "Unknown") =>
      sandbox.client.patch(
        Resources.nodes,
        "node-4",
        "strategic",
        {
          status: {
            conditions: [{ type: "Ready", status, reason: "Test", lastHeartbeatTime: new Date().toISOString() }],
          },
        },
        { subresource: "status" },
      );
    await setReady("True");
    manager = await sandbox.startManager(["--controllers=cloud-node,cloud-node-lifecycle"]);
    const uid = (await sandbox.node("node-4"))?.metadata?.uid;
    await waitFor(() => manager.output().includes('started "cloud-node-lifecycle-controller"'), {
      message: "lifecycle controller started",
    });
    await Bun.sleep(3500); // a negative check: three --node-monitor-period=1s passes must go by
    const kept = await sandbox.node("node-4");
    expect(kept?.metadata?.uid).toBe(uid);
    expect(ready(kept)).toBe(true);
    await setReady("Unknown");
    await waitFor(async () => (await sandbox.node("node-4")) === undefined, {
      timeoutMs: 30_000,
      message: "node-4 deleted once NotReady",
    });
  });
});
