/**
 * LoadBalancer Services created at once. The cluster has initialised nodes (the load balancers' node
 * set); the bench creates every Service in one go and times until each has `status.loadBalancer.ingress`, then
 * waits for the API and cloud to go quiet and divides what was asked of them by the number of Services.
 */
import { Resources } from "../../kube/client-types.ts";
import type { Service } from "../../kube/objects.ts";
import { startCcm, UNTHROTTLED } from "./ccm.ts";
import { listAll, waitQuiet, waitUntil } from "./cluster.ts";
import { type BenchContext, type Benchmark, seconds, withCluster } from "./context.ts";
import { createServices, hasIngress, machines, registerInitialised } from "./fixtures.ts";
import { type BenchResult, type Figure, put, type Scale } from "./report.ts";

const SIZES: Record<Scale, { services: number; nodes: number }> = {
  tenth: { services: 50, nodes: 10 },
  full: { services: 500, nodes: 100 },
};

export interface ServicesRun {
  readonly services: number;
  readonly flags: string[];
  readonly seconds: number;
  readonly apiRequests: number;
  readonly apiWrites: number;
  readonly apiObjectWrites: number;
  readonly cloudCalls: number;
  readonly cloudWrites: number;
  readonly loadBalancers: number;
  readonly requestsByKey: Record<string, number>;
  readonly cloudByRoute: Record<string, number>;
}

export async function serviceBurst(
  ctx: BenchContext,
  o: { services: number; nodes: number; flags?: string[] },
): Promise<ServicesRun> {
  const flags = ["--controllers=service", ...(o.flags ?? [])];
  return withCluster(async (cluster) => {
    registerInitialised(cluster, machines(cluster, o.nodes), false);
    const ccm = startCcm(ctx.exe, cluster, flags);
    try {
      await ccm.healthy();
      await ccm.logged('started "service-lb-controller"');
      await waitQuiet(cluster, 500, 10_000);
      cluster.resetCounters();

      const started = performance.now();
      createServices(cluster, o.services);
      await waitUntil(
        () => listAll<Service>(cluster, Resources.services, "default").filter(hasIngress).length >= o.services,
        `${o.services} Services with an ingress (${flags.join(" ")})`,
        { timeoutMs: 600_000, intervalMs: 25 },
      );
      const elapsed = performance.now() - started;
      await waitQuiet(cluster, 1000, 30_000);
      const req = cluster.requests.snapshot();
      const cloud = cluster.cloudCalls();
      return {
        services: o.services,
        flags,
        seconds: seconds(elapsed),
        apiRequests: req.total,
        apiWrites: req.writes,
        apiObjectWrites: req.objectWrites,
        cloudCalls: cloud.total,
        cloudWrites: cloud.writes,
        loadBalancers: cluster.cloud.state.listLoadBalancers().length,
        requestsByKey: { ...req.byKey },
        cloudByRoute: cloud.byRoute,
      };
    } finally {
      await ccm.stop();
    }
  });
}

export const servicesBenchmark: Benchmark = {
  id: "services",
  title: "LoadBalancer Services created at once (service controller)",
  async run(ctx): Promise<BenchResult> {
    const figures: Figure[] = [];
    const details: Record<string, unknown> = {};
    const sizes: BenchResult["sizes"] = {};
    for (const scale of ctx.scales) {
      const size = SIZES[scale];
      sizes[scale] = `${size.services} Services over ${size.nodes} nodes`;
      ctx.log(`services/${scale}: ${size.services} Services, default flags`);
      const shipped = await serviceBurst(ctx, size);
      ctx.log(`services/${scale}: ${size.services} Services, ${UNTHROTTLED.join(" ")}`);
      const open = await serviceBurst(ctx, { ...size, flags: UNTHROTTLED });
      details[scale] = { defaultFlags: shipped, unthrottled: open };
      const n = size.services;
      put(figures, scale, "all with ingress, default flags", "s", shipped.seconds);
      put(figures, scale, "all with ingress, --kube-api-qps=1000", "s", open.seconds);
      put(figures, scale, "API writes per Service (all)", "/svc", open.apiWrites / n, {
        note: "Events included; the same at default flags",
      });
      put(figures, scale, "API writes per Service (Service objects only)", "/svc", open.apiObjectWrites / n);
      put(figures, scale, "API requests per Service (all verbs)", "/svc", open.apiRequests / n);
      put(figures, scale, "cloud calls per Service", "/svc", open.cloudCalls / n);
      put(figures, scale, "cloud writes per Service", "/svc", open.cloudWrites / n);
      put(figures, scale, "load balancers in the cloud per Service", "/svc", open.loadBalancers / n);
    }
    return {
      id: "services",
      title: this.title,
      sizes,
      figures,
      details,
      notes: [
        "default flags: --concurrent-service-syncs=1 and the client limit --kube-api-qps=20 --kube-api-burst=30, as upstream",
        "the per-Service figures come from the --kube-api-qps=1000 run (details in the JSON hold both)",
      ],
    };
  },
};
