/**
 * Node Leases as a kubelet keeps them: a `coordination.k8s.io/v1` Lease per node in `kube-node-lease`, named after
 * the node, held by it, owned by the Node object, renewed every quarter of its 40 s duration while the kubelet
 * runs. `kubectl describe node` shows it (without it: `Lease: Failed to get lease`), and a node whose machine
 * stopped shows a renew time that no longer moves, as with a dead kubelet.
 */
import { isAlreadyExists, isNotFound, type KubeClient, Resources } from "../kube/client-types.ts";
import type { Lease } from "../kube/objects.ts";

export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/** The kubelet's default `nodeLeaseDurationSeconds`. */
export const NODE_LEASE_DURATION_SECONDS = 40;
/** The kubelet renews at a quarter of the duration. */
export const NODE_LEASE_RENEW_MS = (NODE_LEASE_DURATION_SECONDS * 1000) / 4;

/** A MicroTime: UTC with exactly six fractional digits, as the API requires for Lease times. */
const microTime = (at: Date): string => `${at.toISOString().slice(0, 23)}000Z`;

/** The Lease a kubelet writes for its node (`uid` gives the owner reference, as the kubelet sets it). */
export function nodeLeaseOf(node: { readonly name: string; readonly uid?: string | undefined }, at: Date): Lease {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name: node.name,
      namespace: NODE_LEASE_NAMESPACE,
      ...(node.uid ? { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: node.name, uid: node.uid }] } : {}),
    },
    spec: {
      holderIdentity: node.name,
      leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS,
      renewTime: microTime(at),
    },
  };
}

/** Renews the node's Lease (one merge patch), creating it when it is missing. */
export async function renewNodeLease(
  client: KubeClient,
  node: { readonly name: string; readonly uid?: string | undefined },
  at: Date,
): Promise<void> {
  const lease = nodeLeaseOf(node, at);
  try {
    await client.patch(Resources.leases, node.name, "merge", { spec: lease.spec }, { namespace: NODE_LEASE_NAMESPACE });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create(Resources.leases, lease, { namespace: NODE_LEASE_NAMESPACE });
  }
}

/** Creates the node's Lease, as a kubelet does when it starts; renews it when it is already there. */
export async function createNodeLease(
  client: KubeClient,
  node: { readonly name: string; readonly uid?: string | undefined },
  at: Date,
): Promise<void> {
  try {
    await client.create(Resources.leases, nodeLeaseOf(node, at), { namespace: NODE_LEASE_NAMESPACE });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await renewNodeLease(client, node, at);
  }
}

/** Removes the Lease of a deleted node (the garbage collector's work in a real cluster, through the owner). */
export async function deleteNodeLease(client: KubeClient, name: string): Promise<void> {
  try {
    await client.delete(Resources.leases, name, { namespace: NODE_LEASE_NAMESPACE });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
