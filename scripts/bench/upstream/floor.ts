/**
 * The API server's floor for a join storm: a bare client (ours, unpaced, no informer, no cloud, no events) making the
 * Node writes an initialisation makes — the merge patch of labels, provider ID and the uninitialized taint's removal,
 * and the merge patch of `status.addresses` — for every registered Node, `concurrency` Nodes at once, as the bench's
 * user. A join time reads as a multiple of this: what is left is the manager's own cost (start-up, its lists and
 * watches, cloud calls, events, pacing).
 */
import type { KubeClient } from "../../../kube/client-types.ts";
import { Resources } from "../../../kube/client-types.ts";
import type { Node } from "../../../kube/objects.ts";
import { Labels } from "../../../kube/well-known.ts";

/** The two writes of one Node's initialisation, as ours sends them (controllers/node/node-sync.ts). */
export async function initialiseBare(client: KubeClient, name: string): Promise<void> {
  const labels = {
    [Labels.instanceType]: "bench-1",
    [Labels.zone]: "bench-zone",
    [Labels.region]: "bench-region",
  };
  await client.patch<Node>(Resources.nodes, name, "merge", {
    metadata: { labels },
    spec: { providerID: `sandbox://${name}`, taints: [] },
  });
  const addresses = [
    { type: "InternalIP", address: "10.0.0.1" },
    { type: "Hostname", address: name },
  ];
  await client.patch<Node>(Resources.nodes, name, "merge", { status: { addresses } }, { subresource: "status" });
}

/** Seconds to initialise every Node of `names` by bare writes, `concurrency` at once. */
export async function floorSeconds(client: KubeClient, names: readonly string[], concurrency: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < names.length; i = next++) await initialiseBare(client, names[i] as string);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return (performance.now() - t0) / 1000;
}
