/**
 * test/scenarios/nodes.ts — the scenarios test/nodes.e2e.test.ts runs on the emulator — against a real
 * kube-apiserver (1.20.2, test/real/cluster.ts): the compiled manager initialises the Nodes the simulated kubelets
 * registered, taints a stopped machine's node, and deletes the node of a machine that is gone.
 */
import { describeNodeScenarios } from "../scenarios/nodes.ts";
import { START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

describeNodeScenarios({
  title: "cloud-node and cloud-node-lifecycle controllers, compiled, against a real API server",
  start: (nodes) => startRealCluster({ nodes }),
  startTimeoutMs: START_TIMEOUT_MS,
  nodes: 3,
});
