import { describe, expect, test } from "bun:test";
import type { Service } from "../../../kube/objects.ts";
import { ScalewayAnnotations } from "../annotations.ts";
import type { ScwBackend, ScwFrontend, ScwLoadBalancer } from "../api/lb-schemas.ts";
import { type DesiredLoadBalancer, desiredLoadBalancer } from "./desired.ts";
import { type FoundLoadBalancer, planLoadBalancer, describe as say } from "./plan.ts";

const config = {
  loadBalancer: { prefix: "", tags: [], defaultType: undefined },
  privateNetworkID: undefined,
  zone: "fr-par-1",
  region: "fr-par",
};
const node = {
  metadata: { name: "n1" },
  spec: { providerID: "scaleway://instance/fr-par-1/x" },
  status: { addresses: [{ type: "ExternalIP", address: "51.15.0.1" }] },
};

function want(annotations: Record<string, string> = {}, nodePort = 30080): DesiredLoadBalancer {
  const service: Service = {
    metadata: { name: "web", namespace: "default", uid: "u", annotations },
    spec: { ports: [{ port: 80, protocol: "TCP", nodePort }] },
  };
  return desiredLoadBalancer({ service, values: ScalewayAnnotations.parse(service), nodes: [node], config });
}

const lb: ScwLoadBalancer = {
  id: "lb",
  zone: "fr-par-1",
  name: "u",
  description: "",
  status: "ready",
  type: "lb-s",
  tags: [],
  sslCompatibilityLevel: "ssl_compatibility_level_intermediate",
  ips: [],
};

/** What the API would show after making `d` exactly. */
function converged(d: DesiredLoadBalancer): FoundLoadBalancer {
  const backends: ScwBackend[] = d.ports.map((p, i) => ({ ...p.backend, id: `b${i}`, pool: d.pool ?? [] }));
  const frontends: ScwFrontend[] = d.ports.map((p, i) => ({ ...p.frontend, id: `f${i}`, backendId: `b${i}` }));
  return { lb, frontends, backends, privateNetworks: [] };
}

describe("the plan", () => {
  test("is empty for a load balancer as wanted", () => {
    expect(planLoadBalancer(converged(want()), want())).toEqual([]);
  });

  test("a node port changed: new backend, frontend re-pointed, old backend removed last", () => {
    const ops = planLoadBalancer(converged(want()), want({}, 31000)).map((o) => o.op);
    expect(ops).toEqual(["createBackend", "updateFrontend", "deleteBackend"]);
  });

  test("a duplicate frontend of a port is removed, the first kept", () => {
    const found = converged(want());
    const dup = { ...(found.frontends[0] as ScwFrontend), id: "f-dup" };
    const ops = planLoadBalancer({ ...found, frontends: [...found.frontends, dup] }, want());
    expect(ops).toEqual([{ op: "deleteFrontend", frontend: dup }]);
  });

  test("a setting left unset keeps the load balancer's value", () => {
    const found = converged(want());
    const b0 = { ...(found.backends[0] as ScwBackend), maxConnections: 50 };
    expect(planLoadBalancer({ ...found, backends: [b0] }, want())).toEqual([]);
  });

  test("a changed setting names what changes", () => {
    const ops = planLoadBalancer(
      converged(want()),
      want({ "service.beta.kubernetes.io/scw-loadbalancer-max-connections": "9" }),
    );
    expect(ops.map(say)).toEqual(["change backend u_tcp_30080: maxConnections"]);
  });

  test("of an externally managed load balancer, others' frontends and backends are left alone", () => {
    const d = want({
      "service.beta.kubernetes.io/scw-loadbalancer-externally-managed": "true",
      "service.beta.kubernetes.io/scw-loadbalancer-id": "fr-par-1/11111111-2222-4333-8444-555555555555",
    });
    const found = converged(d);
    const foreign: ScwFrontend = {
      ...(found.frontends[0] as ScwFrontend),
      id: "x",
      name: "other_tcp_80",
      inboundPort: 8080,
    };
    const ops = planLoadBalancer(
      { ...found, frontends: [...found.frontends, foreign], lb: { ...lb, type: "lb-gp-m" } },
      d,
    );
    expect(ops).toEqual([]);
  });
});
