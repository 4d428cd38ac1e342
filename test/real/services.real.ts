/**
 * test/scenarios/services.ts — the scenarios test/services.e2e.test.ts runs on the emulator — against a real
 * kube-apiserver (1.20.2, test/real/cluster.ts): the compiled service controller provisions a load balancer in the
 * simulated cloud for a LoadBalancer Service (finalizer first, ingress after), follows its ports and nodes, and
 * deletes it before the Service goes — also when the Service was deleted while no manager ran. Here only: changing a
 * Service's type away from LoadBalancer. Skipped: `spec.loadBalancerClass` (1.20 has no such field; see below).
 */
import { test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import { describeServiceScenarios } from "../scenarios/services.ts";
import { poll } from "../support/processes.ts";
import { START_TIMEOUT_MS, startRealCluster } from "./cluster.ts";

describeServiceScenarios({
  title: "service controller, compiled, against a real API server",
  start: (nodes) => startRealCluster({ nodes }),
  startTimeoutMs: START_TIMEOUT_MS,
  // Kubernetes 1.20 has no spec.loadBalancerClass (added in 1.21): the server drops the unknown field on write,
  // so such a Service is an ordinary LoadBalancer Service there and this case cannot be shown on this server.
  skip: { loadBalancerClass: "1.20 has no spec.loadBalancerClass" },
  more(run) {
    test("changing a Service's type away from LoadBalancer deletes its load balancer and drops the finalizer", async () => {
      const { uid } = await run.createServed("retyped");
      await run.cluster.client.patch(
        Resources.services,
        "retyped",
        "merge",
        { spec: { type: "ClusterIP" } },
        { namespace: "default" },
      );
      await poll(async () => (await run.lbFor(uid)) === undefined, {
        message: `retyped's load balancer gone; manager said:\n${run.manager.output()}`,
      });
      await poll(async () => !(await run.getService("retyped"))?.metadata?.finalizers?.length, {
        message: `retyped's finalizer dropped; manager said:\n${run.manager.output()}`,
      });
    });
  },
});
