import { expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Node, Service } from "../kube/objects.ts";
import { EmulatorKubeClient } from "../platform/testing/emulator-client.ts";
import { captureLogger } from "../platform/testing/logger.ts";
import { watchProgress } from "./progress.ts";

const node: Node = {
  metadata: { name: "n1" },
  spec: { providerID: "sandbox://m-1" },
  status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] },
};
const service: Service = {
  metadata: { name: "web", namespace: "default" },
  spec: { type: "LoadBalancer", ports: [{ port: 80, protocol: "TCP" }] },
};

test("the first ready line times the start; a later one, the change since, and says it is again", async () => {
  const kube = new EmulatorKubeClient();
  await kube.create(Resources.nodes, node);
  // Status is written through its subresource only, as the API server does.
  await kube.patch(Resources.nodes, "n1", "merge", { status: node.status }, { subresource: "status" });
  let clock = 0;
  const lines: string[] = [];
  const abort = new AbortController();
  const progress = watchProgress({
    client: kube,
    print: (l) => lines.push(l),
    logger: captureLogger().logger,
    signal: abort.signal,
    now: () => clock,
  });
  try {
    clock = 4_000;
    await progress.ready();
    clock = 60_000; // a user creates a Service a minute later
    await kube.create(Resources.services, service, { namespace: "default" });
    await Bun.sleep(50);
    clock = 61_500;
    await kube.patch(
      Resources.services,
      "web",
      "merge",
      { status: { loadBalancer: { ingress: [{ ip: "203.0.113.1" }] } } },
      { namespace: "default", subresource: "status" },
    );
    await progress.ready();
    expect(lines.filter((l) => l.startsWith("ready"))).toEqual([
      "ready: 1 nodes initialised and routed, 0 load balancer(s) with an address (4.0s)",
      "ready again: 1 nodes initialised and routed, 1 load balancer(s) with an address (1.5s after the change)",
    ]);
  } finally {
    abort.abort();
    await progress.done;
  }
});
