import { expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { createMetricsRegistry } from "../../platform/metrics.ts";
import { pendingLoadBalancersMetric } from "./pending-metric.ts";

const service = (name: string, tweak: (s: Service) => void = () => {}): Service => {
  const s: Service = { metadata: { name, namespace: "default" }, spec: { type: "LoadBalancer" } };
  tweak(s);
  return s;
};

test("counts the Services wanting a load balancer of ours that have no ingress yet, at each scrape", async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const services = [
    service("pending"),
    service("served", (s) => {
      s.status = { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } };
    }),
    service("cluster-ip", (s) => {
      s.spec = { type: "ClusterIP" };
    }),
    service("deleting", (s) => {
      s.metadata = { ...s.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    }),
    service("foreign-class", (s) => {
      s.spec = { type: "LoadBalancer", loadBalancerClass: "example.com/other" };
    }),
  ];
  const value = async () =>
    ((await registry.getSingleMetric("cloud_service_controller_pending_load_balancers")?.get())?.values ?? []).map(
      (v) => v.value,
    );
  const unwatch = pendingLoadBalancersMetric(registry).watch({ list: () => services }, undefined);
  expect(await value()).toEqual([1]);
  services.push(service("another"));
  expect(await value()).toEqual([2]);
  unwatch();
  expect(await value()).toEqual([0]);
});
