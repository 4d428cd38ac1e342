/**
 * End to end: the compiled all-in-one runs the sandbox without controllers, a second compiled process
 * runs them with operator flags, and machines are changed through the simulated cloud's REST API. The shared
 * scenarios are test/scenarios/nodes.ts (test/real/nodes.real.ts runs them on a real API server); the last test
 * here, a Ready node kept, is this tier's own.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import { describeNodeScenarios, NODE_CONTROLLERS, ready } from "./scenarios/nodes.ts";
import { waitFor } from "./support/processes.ts";
import { startSandbox } from "./support/sandbox.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

describeNodeScenarios({
  title: "cloud-node and cloud-node-lifecycle controllers, compiled, against the sandbox",
  start: (nodes) => startSandbox({ nodes }),
  startTimeoutMs: 120_000,
  nodes: 4,
  more(run) {
    test("a Ready node is never deleted, even when its machine is gone; NotReady, it is", async () => {
      const { cluster } = run;
      // Hold node-4 Ready while its machine is gone: stop the controllers, delete the machine, wait for the
      // simulated kubelet to report Unknown (it writes only on change), then write Ready=True ourselves.
      run.manager.proc.kill("SIGKILL");
      await run.manager.exited;
      await cluster.cloud.call("DELETE", `/v1/machines/${await cluster.cloud.machineId("node-4")}`);
      await waitFor(async () => !ready(await cluster.node("node-4")), { message: "node-4 reported NotReady" });
      const setReady = (status: "True" | "Unknown") =>
        cluster.client.patch(
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
      run.manager = await cluster.startManager([NODE_CONTROLLERS]);
      const uid = (await cluster.node("node-4"))?.metadata?.uid;
      await waitFor(() => run.manager.output().includes('started "cloud-node-lifecycle-controller"'), {
        message: "lifecycle controller started",
      });
      await Bun.sleep(3500); // a negative check: three --node-monitor-period=1s passes must go by
      const kept = await cluster.node("node-4");
      expect(kept?.metadata?.uid).toBe(uid);
      expect(ready(kept)).toBe(true);
      await setReady("Unknown");
      await waitFor(async () => (await cluster.node("node-4")) === undefined, {
        timeoutMs: 30_000,
        message: "node-4 deleted once NotReady",
      });
    });
  },
});
