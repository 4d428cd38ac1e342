/**
 * test/scenarios/leader-election.ts — the core of test/leader-election.e2e.test.ts — against a real kube-apiserver
 * (1.20.2, test/real/cluster.ts): two compiled managers with `--leader-elect=true` share the Lease
 * kube-system/cloud-controller-manager (a real coordination.k8s.io/v1 Lease, with the server's optimistic
 * concurrency); exactly one leads and initialises the nodes; `kill -9` of it hands over to the standby, and SIGTERM
 * of the new leader releases the Lease to a third. Handover times are printed, and bounded only loosely (the
 * emulator's tier bounds them tightly).
 */
import { describeLeaderElectionScenarios } from "../scenarios/leader-election.ts";
import { START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

describeLeaderElectionScenarios({
  title: "leader election between compiled managers, against a real API server",
  start: (nodes) => startRealCluster({ nodes }),
  startTimeoutMs: START_TIMEOUT_MS,
  boundsMs: { kill: 30_000, term: 15_000 },
  logPrefix: "real API server, ",
});
