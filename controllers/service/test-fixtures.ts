/**
 * Fixture builders for the service controller's tests:
 * `service("web", finalizers(cleanup), ingress({ ip: "1.2.3.4" }))`, `node("n1", ready(false), taint(autoscaler))`.
 */
import type { LoadBalancerIngress, Node, Service } from "../../kube/objects.ts";
import { Finalizers, Labels, Taints } from "../../kube/well-known.ts";

export const cleanup = Finalizers.loadBalancerCleanup;
export const autoscaler = Taints.toBeDeletedByClusterAutoscaler;
export const excludeLabel = Labels.excludeFromExternalLoadBalancers;

export type ServiceTweak = (s: Service) => Service;
export type NodeTweak = (n: Node) => Node;

export function service(name: string, ...tweaks: ServiceTweak[]): Service {
  const base: Service = {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      type: "LoadBalancer",
      ports: [{ name: "http", port: 80, protocol: "TCP", nodePort: 30080, targetPort: 8080 }],
    },
  };
  return tweaks.reduce<Service>((s, t) => t(s), base);
}

export const spec =
  (fields: NonNullable<Service["spec"]>): ServiceTweak =>
  (s) => ({ ...s, spec: { ...s.spec, ...fields } });

export const type = (t: string): ServiceTweak => spec({ type: t });
export const lbClass = (c: string): ServiceTweak => spec({ loadBalancerClass: c });

export const meta =
  (fields: NonNullable<Service["metadata"]>): ServiceTweak =>
  (s) => ({ ...s, metadata: { ...s.metadata, ...fields } });

export const finalizers = (...f: string[]): ServiceTweak => meta({ finalizers: f });
export const deleting = (): ServiceTweak => meta({ deletionTimestamp: "2026-03-01T00:00:00Z" });
export const serviceUID = (uid: string): ServiceTweak => meta({ uid });
export const annotations = (a: Record<string, string>): ServiceTweak => meta({ annotations: a });

export const ingress =
  (...list: LoadBalancerIngress[]): ServiceTweak =>
  (s) => ({ ...s, status: { ...s.status, loadBalancer: { ingress: list } } });

export function node(name: string, ...tweaks: NodeTweak[]): Node {
  const base: Node = {
    metadata: { name, uid: `uid-${name}` },
    spec: { providerID: `fake://${name}` },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  };
  return tweaks.reduce<Node>((n, t) => t(n), base);
}

export const ready =
  (ok: boolean): NodeTweak =>
  (n) => ({ ...n, status: { ...n.status, conditions: [{ type: "Ready", status: ok ? "True" : "False" }] } });

export const noConditions = (): NodeTweak => (n) => ({ ...n, status: {} });

export const label =
  (key: string, value: string): NodeTweak =>
  (n) => ({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata?.labels, [key]: value } } });

export const taint =
  (key: string, effect = "NoSchedule"): NodeTweak =>
  (n) => ({ ...n, spec: { ...n.spec, taints: [...(n.spec?.taints ?? []), { key, effect }] } });

export const nodeDeleting = (): NodeTweak => (n) => ({
  ...n,
  metadata: { ...n.metadata, deletionTimestamp: "2026-03-01T00:00:00Z" },
});

export const providerID =
  (id: string): NodeTweak =>
  (n) => ({ ...n, spec: { ...n.spec, providerID: id } });

export const names = (nodes: readonly Node[]): string[] => nodes.map((n) => n.metadata?.name ?? "");
