import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { createLoadBalancers } from "./load-balancers.ts";
import { node, service, useTestCloud } from "./testing.ts";

const t = useTestCloud();

const web = service("web", "12345678-90ab-cdef-1234-567890abcdef", [
  { name: "http", protocol: "TCP", port: 80, nodePort: 30080 },
]);
const withAlgorithm = (svc: Service, algorithm: string): Service => ({
  ...svc,
  metadata: { ...svc.metadata, annotations: { "sandbox.ccm.dev/load-balancer-algorithm": algorithm } },
});

describe("sandbox planLoadBalancer", () => {
  const cases: {
    name: string;
    existing?: { svc: Service; nodes: string[] };
    svc: Service;
    nodes: string[];
    action: string;
    changes: string[];
  }[] = [
    {
      name: "a Service without a load balancer gets a new one",
      svc: web,
      nodes: ["n2", "n1"],
      action: "create",
      changes: ["create with ports 80/TCP→30080 on nodes n1, n2"],
    },
    {
      name: "a converged load balancer needs nothing",
      existing: { svc: web, nodes: ["n1", "n2"] },
      svc: web,
      nodes: ["n2", "n1"],
      action: "none",
      changes: [],
    },
    {
      name: "a node joining and an annotation changed are each named",
      existing: { svc: web, nodes: ["n1"] },
      svc: withAlgorithm(web, "source-ip"),
      nodes: ["n1", "n2"],
      action: "update",
      changes: ["add node n2", 'algorithm "round-robin" → "source-ip"'],
    },
  ];
  for (const c of cases) {
    test(`${c.name}, and nothing is written to the cloud`, async () => {
      const lbs = createLoadBalancers(t.api);
      if (c.existing)
        await lbs.ensureLoadBalancer(
          t.ctx,
          "kubernetes",
          c.existing.svc,
          c.existing.nodes.map((n) => node(n)),
        );
      t.cloud.calls.reset();
      const plan = await lbs.planLoadBalancer(
        t.ctx,
        "kubernetes",
        c.svc,
        c.nodes.map((n) => node(n)),
      );
      expect(plan.action).toBe(c.action as typeof plan.action);
      expect(plan.changes).toEqual(c.changes);
      expect(plan.name).toBe("a1234567890abcdef1234567890abcde");
      expect(plan.status).toEqual(c.existing ? { ingress: [{ ip: "203.0.113.1" }] } : undefined);
      expect(t.cloud.calls.writes()).toEqual([]);
      expect(t.cloud.calls.snapshot().total).toBe(1);
    });
  }
});
