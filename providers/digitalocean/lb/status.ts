/**
 * The Service's status from its load balancer (DO CCM's): the hostname alone when the annotation sets one, else
 * the IPv4 address and, when there is one, the IPv6. With the PROXY protocol on each address says `ipMode: Proxy`,
 * so kube-proxy sends in-cluster traffic through the load balancer instead of short-cutting it (DO CCM's #811).
 *
 * A load balancer is ready only when `active` with an address: until then the sync is retried after a fixed delay,
 * as DO CCM does; an `errored` one is an error naming it.
 */
import type { LoadBalancerIngress, LoadBalancerStatus } from "../../../kube/objects.ts";
import { RetryError } from "../../errors.ts";
import type { CloudLoadBalancer } from "../api/load-balancers.ts";

/** DO CCM asks again after 15 s while a load balancer is `new`. */
export const PROVISIONING_RETRY_MS = 15_000;

export function statusOf(
  lb: CloudLoadBalancer,
  wanted: { readonly hostname?: string | undefined; readonly proxyProtocol: boolean },
): LoadBalancerStatus {
  if (wanted.hostname !== undefined) return { ingress: [{ hostname: wanted.hostname }] };
  const mode = wanted.proxyProtocol ? { ipMode: "Proxy" } : {};
  const ingress: LoadBalancerIngress[] = [];
  if (lb.ip) ingress.push({ ip: lb.ip, ...mode });
  if (lb.ipv6) ingress.push({ ip: lb.ipv6, ...mode });
  return { ingress };
}

/** Throws unless the load balancer is `active` with an address. */
export function requireReady(lb: CloudLoadBalancer): void {
  if (lb.status === "errored") {
    throw new Error(`load balancer ${lb.id} (${lb.name}) is errored; see it in the DigitalOcean control panel`);
  }
  if (lb.status !== "active" || !lb.ip) {
    throw new RetryError(
      `load balancer ${lb.id} (${lb.name}) is ${lb.status}${lb.ip ? "" : " without an IP yet"}`,
      PROVISIONING_RETRY_MS,
    );
  }
}
