/**
 * Runs a plan (plan.ts) against the Load Balancer API, one call per operation, in order. A frontend names its
 * backend by node port: one made earlier in the same run is used by the ID its creation answered. A failure stops
 * the run; the next sync plans again from what the API then shows, so nothing is made twice.
 */
import type { LoadBalancerStatus } from "../../../kube/objects.ts";
import type { CallContext } from "../../cloud.ts";
import type { ScwBackend, ScwFrontend, ScwLoadBalancer } from "../api/lb-schemas.ts";
import type { LoadBalancersApi } from "../api/load-balancers.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import type { LbOperation } from "./plan.ts";

/** Runs `ops`; answers each frontend's ID by its inbound port, as the load balancer has them after. */
export async function applyOperations(
  ctx: CallContext,
  api: LoadBalancersApi,
  lb: ScwLoadBalancer,
  found: { readonly backends: readonly ScwBackend[]; readonly frontends: readonly ScwFrontend[] },
  ops: readonly LbOperation[],
): Promise<Map<number, string>> {
  const zone = lb.zone;
  const backendByPort = new Map(found.backends.map((b) => [b.forwardPort, b.id]));
  const frontendByPort = new Map<number, string>();
  for (const f of found.frontends) if (!frontendByPort.has(f.inboundPort)) frontendByPort.set(f.inboundPort, f.id);
  const backendOf = (port: number) => {
    const id = backendByPort.get(port);
    if (id === undefined) throw new Error(`no backend for node port ${port} on load balancer ${lb.id}`);
    return id;
  };
  for (const op of ops) {
    switch (op.op) {
      case "deleteFrontend":
        await api.deleteFrontend(ctx, zone, op.frontend.id);
        if (frontendByPort.get(op.frontend.inboundPort) === op.frontend.id)
          frontendByPort.delete(op.frontend.inboundPort);
        break;
      case "createBackend": {
        const made = await api.createBackend(ctx, zone, lb.id, op.spec, op.pool);
        backendByPort.set(op.spec.forwardPort, made.id);
        break;
      }
      case "updateBackend":
        await api.updateBackend(ctx, zone, op.id, op.spec);
        break;
      case "updateHealthCheck":
        await api.updateHealthCheck(ctx, zone, op.id, op.spec);
        break;
      case "setServers":
        await api.setBackendServers(ctx, zone, op.id, op.pool);
        break;
      case "createFrontend": {
        const made = await api.createFrontend(ctx, zone, lb.id, backendOf(op.forwardPort), op.spec);
        frontendByPort.set(op.spec.inboundPort, made.id);
        break;
      }
      case "updateFrontend":
        await api.updateFrontend(ctx, zone, op.id, backendOf(op.forwardPort), op.spec);
        break;
      case "deleteBackend":
        await api.deleteBackend(ctx, zone, op.backend.id);
        break;
      case "attachPrivateNetwork":
        await api.attachPrivateNetwork(ctx, zone, lb.id, op.id, op.ipamIds);
        break;
      case "detachPrivateNetwork":
        await api.detachPrivateNetwork(ctx, zone, lb.id, op.id);
        break;
      case "migrate":
        await api.migrateLoadBalancer(ctx, zone, lb.id, op.type);
        break;
      case "updateSslCompatibilityLevel":
        await api.updateLoadBalancer(ctx, zone, lb.id, {
          name: lb.name,
          description: lb.description,
          tags: lb.tags,
          ssl_compatibility_level: op.level,
        });
        break;
    }
  }
  return frontendByPort;
}

/**
 * The Service's ingress: each public IP (IPv4 and IPv6) with the `ipMode` the Service wants, or each IP's reverse
 * name with `use-hostname` (so in-cluster traffic goes through the load balancer), as scw CCM reports them.
 */
export function statusOf(lb: ScwLoadBalancer, ingress: DesiredLoadBalancer["ingress"]): LoadBalancerStatus {
  return {
    ingress: lb.ips.map((ip) =>
      ingress.useHostname && ip.reverse !== "" ? { hostname: ip.reverse } : { ip: ip.address, ipMode: ingress.ipMode },
    ),
  };
}
