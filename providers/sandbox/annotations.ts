/**
 * The Service annotations the sandbox provider reads: the load balancer's options in the simulated cloud, as a real
 * cloud's provider offers them (hcloud's `load-balancer.hetzner.cloud/…`, DigitalOcean's
 * `service.beta.kubernetes.io/do-loadbalancer-…`). Declared once: the provider reads them with the annotation
 * toolkit, and docs/sandbox.md's reference is generated from these declarations.
 */
import { formatCIDR } from "../../net/cidr.ts";
import { annotation, defineAnnotations } from "../kit/annotations/declare.ts";
import { perPort } from "../kit/annotations/port-readers.ts";
import { bool, cidr, duration, int, list, oneOf } from "../kit/annotations/readers.ts";
import type { LoadBalancerOptions } from "./api/client.ts";

const prefix = "sandbox.ccm.dev/load-balancer";

export const SandboxAnnotations = defineAnnotations({
  algorithm: annotation(`${prefix}-algorithm`, oneOf(["round-robin", "least-connections", "source-ip"]), {
    description: "How the load balancer spreads connections over the nodes.",
    example: "least-connections",
    default: "round-robin",
  }),
  healthCheckInterval: annotation(`${prefix}-health-check-interval`, duration({ min: 1000, max: 300_000 }), {
    description: "How often the load balancer checks each node.",
    example: "30s",
    default: 15_000,
  }),
  healthCheckRetries: annotation(`${prefix}-health-check-retries`, int({ min: 1, max: 10 }), {
    description: "Failed checks in a row before a node stops getting connections.",
    example: "5",
    default: 3,
  }),
  proxyProtocol: annotation(`${prefix}-proxy-protocol`, bool(), {
    description:
      "Send the PROXY protocol header to the nodes, so they see the client's address. The Service's ingress then reports `ipMode: Proxy`, so kube-proxy sends in-cluster traffic to the address through the load balancer too.",
    example: "true",
    default: false,
  }),
  allowedCIDRs: annotation(`${prefix}-allowed-cidrs`, list(cidr()), {
    description: "The source networks allowed to connect.",
    example: "10.0.0.0/8,2001:db8::/32",
    default: [],
    defaultText: "everyone",
  }),
  protocols: annotation(`${prefix}-protocols`, perPort(oneOf(["tcp", "http", "https"])), {
    description: "What each port speaks, by the Service port's number or name; `http` and `https` need a TCP port.",
    example: "80=http,443=https",
    default: new Map(),
    defaultText: "`tcp` for every port",
  }),
});

/** The cloud's options from a Service's annotations; all of them, defaults included, so a removed one reverts. */
export function loadBalancerOptions(values: ReturnType<typeof SandboxAnnotations.parse>): LoadBalancerOptions {
  return {
    algorithm: values.algorithm,
    healthCheck: { intervalMs: values.healthCheckInterval, retries: values.healthCheckRetries },
    proxyProtocol: values.proxyProtocol,
    allowedCIDRs: values.allowedCIDRs.map(formatCIDR),
    portProtocols: Object.fromEntries([...values.protocols].map(([port, protocol]) => [String(port), protocol])),
  };
}
