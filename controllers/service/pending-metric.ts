/**
 * `cloud_service_controller_pending_load_balancers`: how many Services this controller should give a load balancer
 * (type LoadBalancer, of a class it serves, not being deleted) have no ingress in their status yet, read from the
 * service informer's cache at each scrape. Not an upstream metric: it is what the "Services without ingress" alert
 * of `deploy/monitoring/` watches. The leader's service controller counts; a standby reports 0.
 */
import { Gauge, type Registry } from "prom-client";
import type { Service } from "../../kube/objects.ts";
import { perRegistry } from "../../platform/metrics.ts";
import type { LoadBalancerClasses } from "../../providers/cloud.ts";
import { wantsLoadBalancer } from "./predicates.ts";

export interface PendingLoadBalancersMetric {
  /** Report from `lister` (Services of `classes`) until the returned function is called. */
  watch(lister: { list(): Service[] }, classes: LoadBalancerClasses | undefined): () => void;
}

const pending = (svc: Service, classes: LoadBalancerClasses | undefined) =>
  wantsLoadBalancer(svc, classes) &&
  !svc.metadata?.deletionTimestamp &&
  (svc.status?.loadBalancer?.ingress ?? []).length === 0;

export const pendingLoadBalancersMetric = (registry: Registry): PendingLoadBalancersMetric =>
  perRegistry(registry, "pending-load-balancers", () => {
    let source: { lister: { list(): Service[] }; classes: LoadBalancerClasses | undefined } | undefined;
    new Gauge({
      name: "cloud_service_controller_pending_load_balancers",
      help: "Services of type LoadBalancer this controller serves that have no ingress yet, from its cache (not upstream).",
      registers: [registry],
      collect() {
        this.reset();
        const s = source;
        this.set(s ? s.lister.list().filter((svc) => pending(svc, s.classes)).length : 0);
      },
    });
    return {
      watch(lister, classes) {
        const mine = { lister, classes };
        source = mine;
        return () => {
          if (source === mine) source = undefined;
        };
      },
    };
  });
