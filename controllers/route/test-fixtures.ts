/** Fixture builders for the route controller's tests: `node("n1", podCIDRs("10.244.1.0/24"), uid("u1"))`. */
import type { Node, NodeAddress, NodeCondition } from "../../kube/objects.ts";
import type { Route } from "../../providers/cloud.ts";

export type NodeTweak = (n: Node) => Node;

export function node(name: string, ...tweaks: NodeTweak[]): Node {
  return tweaks.reduce<Node>((n, t) => t(n), { metadata: { name, uid: `uid-${name}` }, spec: {}, status: {} });
}

export const podCIDRs =
  (...cidrs: string[]): NodeTweak =>
  (n) => ({ ...n, spec: { ...n.spec, podCIDRs: cidrs, ...(cidrs[0] ? { podCIDR: cidrs[0] } : {}) } });

export const legacyPodCIDR =
  (cidr: string): NodeTweak =>
  (n) => ({ ...n, spec: { ...n.spec, podCIDR: cidr } });

export const uid =
  (value: string): NodeTweak =>
  (n) => ({ ...n, metadata: { ...n.metadata, uid: value } });

export const internalIP = (address: string): NodeAddress => ({ type: "InternalIP", address });
export const hostname = (address: string): NodeAddress => ({ type: "Hostname", address });

export const addresses =
  (...list: NodeAddress[]): NodeTweak =>
  (n) => ({ ...n, status: { ...n.status, addresses: list } });

export const condition =
  (c: Partial<NodeCondition> & Pick<NodeCondition, "type" | "status">): NodeTweak =>
  (n) => ({ ...n, status: { ...n.status, conditions: [...(n.status?.conditions ?? []), c] } });

export function route(targetNode: string, destinationCIDR: string, extra: Partial<Route> = {}): Route {
  return { name: `kubernetes-${targetNode}-${destinationCIDR}`, targetNode, destinationCIDR, ...extra };
}
