import { describe, expect, test } from "bun:test";
import { defaultLoadBalancerName } from "../cloud.ts";
import { findInCauseChain, RetryError } from "../errors.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { rejection } from "../testing.ts";
import { createLoadBalancers } from "./load-balancers.ts";
import { node, service, useTestCloud } from "./testing.ts";

const t = useTestCloud();

const uid = "12345678-90ab-cdef-1234-567890abcdef";
const web = service("web", uid, [
  { name: "http", protocol: "TCP", port: 80, nodePort: 30080 },
  { name: "dns", protocol: "UDP", port: 53, nodePort: 30053 },
]);
const nodes = [node("node-2"), node("node-1")];

describe("sandbox load balancers", () => {
  test("are named after the Service UID", () => {
    const name = createLoadBalancers(t.api).getLoadBalancerName(t.ctx, "kubernetes", web);
    expect(name).toBe("a1234567890abcdef1234567890abcde");
    expect(name).toBe(defaultLoadBalancerName(web));
  });

  test("ensure creates one with the Service's ports and nodes and reports its address as ingress", async () => {
    const status = await createLoadBalancers(t.api).ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    expect(status).toEqual({ ingress: [{ ip: "203.0.113.1" }] });
    expect(t.cloud.state.getLoadBalancer(defaultLoadBalancerName(web))).toMatchObject({
      cluster: "kubernetes",
      serviceUID: uid,
      serviceNamespace: "default",
      serviceName: "web",
      ports: [
        { name: "http", protocol: "TCP", port: 80, nodePort: 30080 },
        { name: "dns", protocol: "UDP", port: 53, nodePort: 30053 },
      ],
      nodes: ["node-1", "node-2"],
    });
  });

  test("ensure is idempotent: the same address, one load balancer, one call each time", async () => {
    const lbs = createLoadBalancers(t.api);
    const first = await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    const before = t.cloud.state.getLoadBalancer(defaultLoadBalancerName(web));
    t.cloud.calls.reset();
    expect(await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, [...nodes].reverse())).toEqual(first);
    expect(t.cloud.calls.snapshot().total).toBe(1);
    expect(t.cloud.state.listLoadBalancers()).toEqual([before!]);
  });

  test("get answers undefined before ensure and the status after", async () => {
    const lbs = createLoadBalancers(t.api);
    expect(await lbs.getLoadBalancer(t.ctx, "kubernetes", web)).toBeUndefined();
    await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    expect(await lbs.getLoadBalancer(t.ctx, "kubernetes", web)).toEqual({ ingress: [{ ip: "203.0.113.1" }] });
  });

  test("update changes only the nodes", async () => {
    const lbs = createLoadBalancers(t.api);
    await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    const before = t.cloud.state.getLoadBalancer(defaultLoadBalancerName(web))!;
    const changedService = service("web", uid, [{ name: "other", protocol: "TCP", port: 8080, nodePort: 31000 }]);
    await lbs.updateLoadBalancer(t.ctx, "kubernetes", changedService, [node("node-3")]);
    const after = t.cloud.state.getLoadBalancer(defaultLoadBalancerName(web))!;
    expect(after).toEqual({ ...before, nodes: ["node-3"], updatedAt: after.updatedAt });
  });

  test("update of a load balancer that does not exist fails with the operation prefix", async () => {
    const err = await rejection(() => createLoadBalancers(t.api).updateLoadBalancer(t.ctx, "kubernetes", web, nodes));
    expect(err.message).toStartWith("sandbox/load-balancers.update default/web: sandbox/api.setLoadBalancerNodes: 404");
  });

  test("delete removes it and frees the address; deleting again succeeds", async () => {
    const lbs = createLoadBalancers(t.api);
    await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    await lbs.ensureLoadBalancerDeleted(t.ctx, "kubernetes", web);
    await lbs.ensureLoadBalancerDeleted(t.ctx, "kubernetes", web);
    expect(t.cloud.state.listLoadBalancers()).toEqual([]);
    const other = await lbs.ensureLoadBalancer(t.ctx, "kubernetes", service("b", "uid-b", web.spec!.ports), nodes);
    expect(other.ingress?.[0]?.ip).toBe("203.0.113.1");
  });

  test("the cloud-config's cluster overrides --cluster-name", async () => {
    await createLoadBalancers(t.api, { cluster: "demo" }).ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
    expect(t.cloud.state.listLoadBalancers({ cluster: "demo" })).toHaveLength(1);
  });

  test.each([
    ["has no ports", service("web", uid, []), "the Service has no ports"],
    ["has no UID", service("web", "", web.spec!.ports), "the Service has no UID"],
  ])("ensure refuses a Service that %s, before calling the cloud", async (_, svc, message) => {
    const err = await rejection(() => createLoadBalancers(t.api).ensureLoadBalancer(t.ctx, "kubernetes", svc, nodes));
    expect(err.message).toStartWith(`sandbox/load-balancers.ensure default/web: ${message}`);
    expect(t.cloud.calls.snapshot().total).toBe(0);
  });

  test("a rate-limited ensure asks for a retry after the cloud's delay", async () => {
    t.cloud.faults.set({ failNext: [{ method: "PUT", pathPrefix: "/v1/load-balancers", status: 429, count: 1 }] });
    const err = await rejection(() => createLoadBalancers(t.api).ensureLoadBalancer(t.ctx, "kubernetes", web, nodes));
    expect(findInCauseChain(err, RetryError)?.retryAfterMs).toBe(1000);
  });

  describe("options from annotations", () => {
    const annotated = (annotations: Record<string, string>) => {
      const svc = structuredClone(web);
      svc.metadata!.annotations = annotations;
      return svc;
    };
    const optionsInCloud = () => t.cloud.state.getLoadBalancer(defaultLoadBalancerName(web))?.options;

    test("are carried to the cloud; what is not set gets the default", async () => {
      const svc = annotated({
        "sandbox.ccm.dev/load-balancer-algorithm": "source-ip",
        "sandbox.ccm.dev/load-balancer-health-check-interval": "1m30s",
        "sandbox.ccm.dev/load-balancer-allowed-cidrs": "10.1.2.3/8, 2001:DB8::/32",
        "sandbox.ccm.dev/load-balancer-protocols": "http=http",
      });
      await createLoadBalancers(t.api).ensureLoadBalancer(t.ctx, "kubernetes", svc, nodes);
      expect(optionsInCloud()).toEqual({
        algorithm: "source-ip",
        healthCheck: { intervalMs: 90_000, retries: 3 },
        proxyProtocol: false,
        allowedCIDRs: ["10.0.0.0/8", "2001:db8::/32"],
        portProtocols: { "80": "http" },
      });
    });

    test("a removed annotation puts the default back", async () => {
      const lbs = createLoadBalancers(t.api);
      await lbs.ensureLoadBalancer(
        t.ctx,
        "kubernetes",
        annotated({ "sandbox.ccm.dev/load-balancer-health-check-retries": "7" }),
        nodes,
      );
      expect(optionsInCloud()?.healthCheck.retries).toBe(7);
      await lbs.ensureLoadBalancer(t.ctx, "kubernetes", web, nodes);
      expect(optionsInCloud()?.healthCheck.retries).toBe(3);
    });

    test("the PROXY protocol makes the ingress ipMode Proxy, in ensure and get alike", async () => {
      const lbs = createLoadBalancers(t.api);
      const svc = annotated({ "sandbox.ccm.dev/load-balancer-proxy-protocol": "true" });
      const want = { ingress: [{ ip: "203.0.113.1", ipMode: "Proxy" }] };
      expect(await lbs.ensureLoadBalancer(t.ctx, "kubernetes", svc, nodes)).toEqual(want);
      expect(await lbs.getLoadBalancer(t.ctx, "kubernetes", svc)).toEqual(want);
    });

    test("a Service setting several wrongly gets one error naming each, and no cloud call", async () => {
      const svc = annotated({
        "sandbox.ccm.dev/load-balancer-algorithm": "fastest",
        "sandbox.ccm.dev/load-balancer-health-check-retries": "0",
        "sandbox.ccm.dev/load-balancer-protocols": "https=https",
        "sandbox.ccm.dev/load-balancer-proxy-protocol": "true",
      });
      const err = await rejection(() => createLoadBalancers(t.api).ensureLoadBalancer(t.ctx, "kubernetes", svc, nodes));
      expect(findInCauseChain(err, InvalidAnnotationsError)?.problems.map((p) => [p.key, p.value])).toEqual([
        ["sandbox.ccm.dev/load-balancer-algorithm", "fastest"],
        ["sandbox.ccm.dev/load-balancer-health-check-retries", "0"],
        ["sandbox.ccm.dev/load-balancer-protocols", "https=https"],
      ]);
      expect(err.message).toStartWith("sandbox/load-balancers.ensure default/web: 3 invalid annotations: ");
      expect(t.cloud.calls.snapshot().total).toBe(0);
    });
  });
});
