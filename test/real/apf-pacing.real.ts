/**
 * On a real kube-apiserver (1.20, APF on by default): its answers carry X-Kubernetes-PF-FlowSchema-UID and
 * X-Kubernetes-PF-PriorityLevel-UID, so the compiled manager without --kube-api-qps/--kube-api-burst switches to the
 * server's flow control and still initialises every node; with --kube-api-qps set, the client-side limit holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { poll } from "../support/processes.ts";
import { allNodesInitialised, type RealCluster, START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

let cluster: RealCluster;

beforeAll(async () => {
  cluster = await startRealCluster({ nodes: 3 });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
});

const initialised = () => allNodesInitialised(cluster);

const pacingLines = (output: string) => output.split("\n").filter((l) => l.includes("Kubernetes client pacing:"));

describe("client pacing on a real kube-apiserver 1.20", () => {
  const cases = [
    {
      name: "its APF headers switch the manager to the server's flow control when the flags are not set",
      flags: [] as string[],
      log: "the API server's flow control (APF headers seen, --kube-api-qps/--kube-api-burst not set)",
    },
    {
      name: "an explicit --kube-api-qps keeps the client-side limit",
      flags: ["--kube-api-qps=20"],
      log: "client-side token bucket at --kube-api-qps=20 --kube-api-burst=30, set explicitly",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const manager = await cluster.startManager(["--controllers=cloud-node", ...c.flags]);
      await poll(() => pacingLines(manager.output()).length > 0, {
        timeoutMs: 60_000,
        message: "the pacing line in the manager's log",
      });
      await poll(initialised, { timeoutMs: 60_000, message: "every node initialised" });
      const lines = pacingLines(manager.output());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(c.log);
      manager.proc.kill("SIGTERM");
      expect(await manager.exited).toBe(0);
    });
  }
});
