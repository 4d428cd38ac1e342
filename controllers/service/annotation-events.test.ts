/**
 * A Service whose annotations a provider refuses, through the real service controller and event recorder: the
 * sandbox provider (annotation toolkit, simulated cloud on loopback) throws one `InvalidAnnotationsError`, and the
 * user sees ONE Warning event that names every bad annotation and value — retries count on that event instead of
 * adding more — until the annotations are fixed.
 */
import { afterEach, expect, test } from "bun:test";
import { Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { FakeClock, waitFor } from "../../kube/testdata/fake-clock.ts";
import type { CloudProvider } from "../../providers/cloud.ts";
import { sandboxProvider } from "../../providers/sandbox/provider.ts";
import { startTestCloud, type TestCloud } from "../../providers/sandbox/testing.ts";
import { type ControllerHarness, controllerHarness } from "../runtime/testing/controller-context.ts";
import { SERVICE_RESYNC_MS, startServiceController } from "./controller.ts";
import { annotations, node, service } from "./test-fixtures.ts";

let harness: ControllerHarness<FakeClock> | undefined;
let cloud: TestCloud | undefined;
afterEach(async () => {
  await harness?.stop();
  await cloud?.stop();
  harness = cloud = undefined;
});

const bad = {
  "sandbox.ccm.dev/load-balancer-algorithm": "fastest",
  "sandbox.ccm.dev/load-balancer-health-check-interval": "10",
  "sandbox.ccm.dev/load-balancer-protocols": "8443=https",
};

test("invalid annotations give one Warning event naming each, counted on retries, until they are fixed", async () => {
  cloud = startTestCloud();
  const inner = sandboxProvider(cloud.api);
  let attempts = 0;
  const provider: CloudProvider = {
    ...inner,
    loadBalancer: {
      ...inner.loadBalancer,
      ensureLoadBalancer: (...args) => {
        attempts++;
        return inner.loadBalancer.ensureLoadBalancer(...args);
      },
    },
  };
  const clock = new FakeClock();
  const t0 = clock.now();
  // The next timer before the resync is the worker's retry (5s, then 10s: both well before it).
  const retryScheduled = () => (clock.nextAt() ?? Number.POSITIVE_INFINITY) < t0 + SERVICE_RESYNC_MS;
  const h = controllerHarness({ name: "service-lb-controller", provider, clock, nodes: [node("n1")] });
  harness = h;
  h.client.seed(Resources.services, service("web", annotations(bad)));
  expect((await h.start(startServiceController)).started).toBeTrue();

  const failures = () => h.writtenEvents("SyncLoadBalancerFailed");
  await waitFor(() => failures()[0]?.count === 1, { message: "the first failure's event" });
  for (let attempt = 2; attempt <= 3; attempt++) {
    await waitFor(() => attempts === attempt - 1 && retryScheduled(), { message: `retry ${attempt} scheduled` });
    await clock.advance((clock.nextAt() ?? 0) - clock.now());
    await waitFor(() => attempts === attempt, { message: `attempt ${attempt}` });
  }
  await h.flushEvents();
  expect(failures()).toHaveLength(1);
  expect(failures()[0]?.count).toBe(3);
  const message = failures()[0]?.message ?? "";
  expect(message).toStartWith(
    "Error syncing load balancer: failed to ensure load balancer: sandbox/load-balancers.ensure default/web: 3 invalid annotations: ",
  );
  for (const [key, value] of Object.entries(bad)) expect(message).toContain(`${key}=${JSON.stringify(value)}`);
  expect(cloud.cloud.state.listLoadBalancers()).toEqual([]);

  const fixed = structuredClone(h.client.peek<Service>(Resources.services, "web", "default")!);
  fixed.metadata!.annotations = { "sandbox.ccm.dev/load-balancer-algorithm": "least-connections" };
  await h.client.update(Resources.services, fixed, { namespace: "default" });
  await waitFor(() => h.writtenEvents("EnsuredLoadBalancer").length === 1, { message: "the load balancer ensured" });
  expect(cloud.cloud.state.listLoadBalancers().map((lb) => lb.options.algorithm)).toEqual(["least-connections"]);
  expect(failures()).toHaveLength(1);
});
