/**
 * hccm's Warning events reach Kubernetes once the manager's `initialize` hands the provider its client: on the Node
 * (Robot findings) and on the Service (the load balancer type), with hccm's reasons and `source.component`.
 */
import { afterEach, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { Resources } from "../../kube/client-types.ts";
import type { Event } from "../../kube/objects.ts";
import { waitFor } from "../../kube/testdata/fake-clock.ts";
import { EmulatorKubeClient } from "../../platform/testing/emulator-client.ts";
import { captureLogger } from "../../platform/testing/logger.ts";
import { TOKEN } from "../../sandbox/hcloud/testing.ts";
import { testProviderRuntime } from "../runtime.ts";
import { service, startLB } from "./lb/testing.ts";
import { hcloud } from "./provider.ts";
import { addresses, node, providerID, ROBOT_PASSWORD, ROBOT_USER, startEmulators } from "./testing.ts";

const term = new AbortController();
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  term.abort();
  await stop?.();
});

test("after initialize, Robot findings are Warning events on the Node and type findings on the Service", async () => {
  const e = startEmulators();
  stop = () => e.stop();
  const w = await startLB(e);
  const renamed = e.robot.state.addServer({ name: "other-cluster-7" });
  const kept = e.robot.state.addServer({ name: "bm-1" });
  const provider = await hcloud.build(
    {
      env: {
        HCLOUD_TOKEN: TOKEN,
        HCLOUD_ENDPOINT: e.h.emulator.endpoint,
        HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1",
        HCLOUD_NETWORK_ROUTES_ENABLED: "false",
        ROBOT_ENABLED: "true",
        ROBOT_USER,
        ROBOT_PASSWORD,
        ROBOT_ENDPOINT: e.robot.url,
        ROBOT_FORWARD_INTERNAL_IPS: "true",
      },
      config: undefined,
      configSource: undefined,
      metrics: new Registry(),
    },
    { retry: { maxRetries: 0 }, now: e.h.clock.now },
  );
  const client = new EmulatorKubeClient();
  const { logger, logs } = captureLogger();
  await provider.initialize!(testProviderRuntime(client, term.signal, logger));
  const ctx = { signal: term.signal };

  await provider.instancesV2!.instanceExists(ctx, node("bm-2", providerID(`hrobot://${renamed.number}`)));
  const misconfigured = node(
    "bm-1",
    providerID(`hrobot://${kept.number}`),
    addresses({ type: "InternalIP", address: "fd00::5" }),
  );
  await provider.instancesV2!.instanceMetadata(ctx, misconfigured);
  await provider.loadBalancer!.ensureLoadBalancer(ctx, "kubernetes", service(), w.nodes);

  const events = async () => (await client.list<Event>(Resources.events)).items;
  await waitFor(async () => (await events()).length >= 3, { message: "three Warning events" });
  const seen = (await events()).map((e) => [
    e.involvedObject?.kind,
    e.involvedObject?.name,
    e.reason,
    e.type,
    e.source?.component,
  ]);
  expect(seen.sort()).toEqual([
    ["Node", "bm-1", "MisconfiguredInternalIP", "Warning", "hcloud-cloud-controller-manager"],
    ["Node", "bm-2", "PossibleNodeDeletion", "Warning", "hcloud-cloud-controller-manager"],
    ["Service", "web", "LoadBalancerTypeUnconfigured", "Warning", "hcloud-cloud-controller-manager"],
  ]);
  // Logged too, as hccm does.
  expect(logs.filter((l) => l.type === "warn" && l.message.includes("is now named"))).toHaveLength(1);
});
