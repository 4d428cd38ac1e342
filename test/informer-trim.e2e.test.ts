/**
 * The informer caches keep only the fields the controllers read (kube/trim.ts). This proves, on the
 * compiled executable, that nothing the cache dropped is lost by a write built from a cached Node: kubelet-shaped
 * Nodes (images, capacity, node info, volumes; one cordoned, one with its own annotation) are initialised, and
 * afterwards the server still holds every field the kubelet and the operator wrote.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { Node } from "../kube/objects.ts";
import { kubeletNode } from "../kube/testdata/kubelet-node.ts";
import { Taints } from "../kube/well-known.ts";
import { executable } from "./support/executables.ts";
import { type InProcessCluster, startInProcessCluster } from "./support/in-process.ts";
import { managerCommand, poll, type RunningProcess, spawnCollecting } from "./support/processes.ts";

setDefaultTimeout(180_000);

let cluster: InProcessCluster;
let client: KubeClient;
let manager: RunningProcess | undefined;

beforeAll(async () => {
  await executable();
  cluster = await startInProcessCluster({ name: "trim", machines: 2 });
  ({ client } = cluster);
}, 300_000);

afterAll(async () => {
  manager?.proc.kill("SIGKILL");
  await manager?.exited;
  await cluster?.stop();
});

const nodes = async () => (await client.list<Node>(Resources.nodes)).items;
const initialised = (n: Node) => !(n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized);

/** What a real kubelet reports beyond the sandbox kubelet's Ready condition and Hostname address. */
function kubeletStatus(name: string) {
  const { images, capacity, allocatable, nodeInfo, daemonEndpoints, volumesInUse, volumesAttached } =
    kubeletNode(name).status ?? {};
  return { images, capacity, allocatable, nodeInfo, daemonEndpoints, volumesInUse, volumesAttached };
}

test("kubelet-shaped nodes are initialised from the trimmed cache and keep every field on the server", async () => {
  const names = (await nodes()).map((n) => n.metadata?.name ?? "").sort();
  expect(names).toHaveLength(2);
  const [cordoned, annotated] = names as [string, string];
  for (const name of names) {
    await client.patch(Resources.nodes, name, "merge", { status: kubeletStatus(name) }, { subresource: "status" });
  }
  await client.patch(Resources.nodes, cordoned, "merge", { spec: { unschedulable: true } });
  await client.patch(Resources.nodes, annotated, "merge", {
    metadata: { annotations: { "example.com/owner": "ops" } },
  });

  manager = spawnCollecting(await managerCommand(cluster.files, ["--controllers=cloud-node"]));
  await poll(async () => (await nodes()).every(initialised), { timeoutMs: 60_000, message: "every node initialised" });

  const after = new Map((await nodes()).map((n) => [n.metadata?.name ?? "", n]));
  for (const name of names) {
    const node = after.get(name);
    expect(node?.spec?.providerID).toBeTruthy();
    expect({ name, ...kubeletStatus(name) }).toEqual({
      name,
      images: node?.status?.images,
      capacity: node?.status?.capacity,
      allocatable: node?.status?.allocatable,
      nodeInfo: node?.status?.nodeInfo,
      daemonEndpoints: node?.status?.daemonEndpoints,
      volumesInUse: node?.status?.volumesInUse,
      volumesAttached: node?.status?.volumesAttached,
    } as never);
  }
  expect(after.get(cordoned)?.spec?.unschedulable).toBe(true);
  expect(after.get(annotated)?.metadata?.annotations?.["example.com/owner"]).toBe("ops");
});
