/**
 * LoadBalancer for the sandbox cloud: one cloud load balancer per Service, named from the Service UID
 * (`defaultLoadBalancerName`), created or updated with one idempotent PUT, its address reported as the ingress IP.
 * Its options come from the Service's annotations (annotations.ts); a Service that sets any wrongly gets no cloud
 * call, and one error naming every bad annotation, which the service controller reports as one Warning event.
 */

import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { defaultLoadBalancerName, type LoadBalancer } from "../cloud.ts";
import { wrapError } from "../errors.ts";
import { loadBalancerOptions, SandboxAnnotations } from "./annotations.ts";
import type { LoadBalancerSpec, SandboxApi, SandboxLoadBalancer, SandboxPort } from "./api/client.ts";
import { previewSandboxLoadBalancer } from "./load-balancer-preview.ts";

export interface LoadBalancersOptions {
  /** Overrides the framework's `--cluster-name` on the load balancers this provider creates. */
  readonly cluster?: string | undefined;
}

export function createLoadBalancers(api: SandboxApi, options: LoadBalancersOptions = {}) {
  const nameOf = (service: Service) => defaultLoadBalancerName(service);

  /** Run `fn`, prefixing any failure with the operation and the Service. */
  async function step<T>(op: string, service: Service, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const svc = `${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`;
      throw wrapError(`sandbox/load-balancers.${op} ${svc}`, err);
    }
  }

  return {
    getLoadBalancerName(_ctx, _clusterName, service) {
      return nameOf(service);
    },

    async getLoadBalancer(ctx, _clusterName, service) {
      return step("get", service, async () => {
        const lb = await api.getLoadBalancer(ctx, nameOf(service));
        return lb && statusOf(lb, lb.options?.proxyProtocol ?? false);
      });
    },

    async ensureLoadBalancer(ctx, clusterName, service, nodes) {
      return step("ensure", service, async () => {
        const spec = specOf(options.cluster ?? clusterName, service, nodes);
        const lb = await api.putLoadBalancer(ctx, nameOf(service), spec);
        return statusOf(lb, spec.options?.proxyProtocol ?? false);
      });
    },

    async planLoadBalancer(ctx, clusterName, service, nodes) {
      return step("plan", service, async () => {
        const spec = specOf(options.cluster ?? clusterName, service, nodes);
        const current = await api.getLoadBalancer(ctx, nameOf(service));
        const proxy = spec.options?.proxyProtocol ?? false;
        return previewSandboxLoadBalancer(nameOf(service), current, spec, (lb) => statusOf(lb, proxy));
      });
    },

    async updateLoadBalancer(ctx, _clusterName, service, nodes) {
      await step("update", service, () => api.setLoadBalancerNodes(ctx, nameOf(service), nodeNames(nodes)));
    },

    async ensureLoadBalancerDeleted(ctx, _clusterName, service) {
      // `false` (there was none) is success: deleting is idempotent.
      await step("delete", service, () => api.deleteLoadBalancer(ctx, nameOf(service)));
    },
  } satisfies LoadBalancer;
}

function specOf(cluster: string, service: Service, nodes: readonly Node[]): LoadBalancerSpec {
  const uid = service.metadata?.uid;
  if (!uid) throw new Error("the Service has no UID to name its load balancer after");
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0) throw new Error("the Service has no ports");
  const options = loadBalancerOptions(SandboxAnnotations.parse(service));
  return {
    cluster,
    serviceUID: uid,
    serviceNamespace: service.metadata?.namespace ?? "default",
    serviceName: service.metadata?.name ?? "",
    ports: ports.map(
      (p): SandboxPort => ({
        name: p.name ?? "",
        protocol: (p.protocol ?? "TCP") as SandboxPort["protocol"],
        port: p.port,
        nodePort: p.nodePort ?? 0,
      }),
    ),
    nodes: nodeNames(nodes),
    options,
  };
}

function nodeNames(nodes: readonly Node[]): string[] {
  return nodes.flatMap((n) => (n.metadata?.name ? [n.metadata.name] : [])).sort();
}

/** With the PROXY protocol on, the address is not a plain VIP: traffic to it must go through the load balancer. */
function statusOf(lb: SandboxLoadBalancer, proxyProtocol: boolean): LoadBalancerStatus {
  return { ingress: [{ ip: lb.address, ...(proxyProtocol ? { ipMode: "Proxy" } : {}) }] };
}
