/**
 * The pure half of the load balancer: what a Service and its Nodes ask for, as DO CCM's `buildLoadBalancerRequest`
 * builds it, and the refusals that name the setting to change.
 */
import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../../kube/objects.ts";
import { annotationPrefix as A, DigitalOceanAnnotations } from "../annotations.ts";
import type { CloudLoadBalancer } from "../api/load-balancers.ts";
import { type DesiredInput, desiredLoadBalancer } from "./desired.ts";

const node = (name: string, ...addresses: [string, string][]): Node => ({
  metadata: { name },
  status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
});
const v4 = node("v4", ["InternalIP", "10.0.0.1"], ["ExternalIP", "192.0.2.1"]);
const dual = node("dual", ["InternalIP", "10.0.0.2"], ["ExternalIP", "192.0.2.2"], ["ExternalIP", "2001:db8::2"]);
const v6only = node("v6only", ["ExternalIP", "2001:db8::3"]);
const privateOnly = node("private", ["InternalIP", "10.0.0.4"]);

function input(annotations: Record<string, string>, tweak: Partial<DesiredInput> = {}, nodes = [v4]): DesiredInput {
  const service: Service = {
    metadata: { name: "web", namespace: "default", uid: "u-1", annotations },
    spec: { ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] },
  };
  return {
    service,
    values: DigitalOceanAnnotations.parse(service),
    nodes: nodes.map((n, i) => ({ node: n, dropletID: i + 1 })),
    config: { region: "nyc3", defaultLoadBalancerType: "REGIONAL" },
    tags: ["k8s:c", "ccm-service:u-1"],
    ...tweak,
  };
}

describe("the desired load balancer", () => {
  test.each([
    ["REGIONAL keeps Nodes with only a private IPv4", "REGIONAL", [v4, privateOnly], [1, 2]],
    ["REGIONAL_NETWORK keeps only Nodes with a public IPv4", "REGIONAL_NETWORK", [v4, privateOnly, v6only], [1]],
    ["INTERNAL keeps every Node", "INTERNAL", [v4, privateOnly, v6only], [1, 2, 3]],
  ] as const)("%s", (_name, kind, nodes, ids) => {
    const annotations = kind === "INTERNAL" ? { [`${A}network`]: "INTERNAL" } : { [`${A}type`]: kind };
    expect(desiredLoadBalancer(input(annotations, {}, [...nodes])).body.droplet_ids).toEqual([...ids]);
  });

  test.each([
    ["REGIONAL is dual-stack", {}, [v4], "DUALSTACK"],
    ["REGIONAL_NETWORK is IPv4 while a Node has no IPv6", { [`${A}type`]: "REGIONAL_NETWORK" }, [v4, dual], "IPV4"],
    [
      "REGIONAL_NETWORK is dual-stack when every Node has IPv6",
      { [`${A}type`]: "REGIONAL_NETWORK" },
      [dual],
      "DUALSTACK",
    ],
    ["INTERNAL is IPv4", { [`${A}network`]: "INTERNAL" }, [v4], "IPV4"],
  ] as const)("network stack: %s", (_name, annotations, nodes, stack) => {
    expect(desiredLoadBalancer(input(annotations, {}, [...nodes])).body.network_stack).toBe(stack);
  });

  test.each([
    ["no public IPv4 for REGIONAL_NETWORK", { [`${A}type`]: "REGIONAL_NETWORK" }, [privateOnly], /public IPv4/],
    ["a port in two protocol lists", { [`${A}http-ports`]: "80", [`${A}tls-ports`]: "80" }, [v4], /port\(s\) 80/],
    [
      "TLS passthrough with a certificate",
      { [`${A}certificate-id`]: "c", [`${A}tls-passthrough`]: "true" },
      [v4],
      /not both/,
    ],
    ["an https port without certificate", { [`${A}protocol`]: "https" }, [v4], /certificate-id/],
    [
      "cookies without their name and TTL",
      { [`${A}sticky-sessions-type`]: "cookies" },
      [v4],
      /cookie-name and -cookie-ttl/,
    ],
    ["both size annotations", { [`${A}size-slug`]: "lb-small", [`${A}size-unit`]: "2" }, [v4], /only one/],
    ["dual stack on INTERNAL", { [`${A}network`]: "INTERNAL", [`${A}network-stack`]: "DUALSTACK" }, [v4], /INTERNAL/],
    ["http3 without a certificate", { [`${A}http3-port`]: "80" }, [v4], /needs a certificate/],
  ] as const)("refuses %s", (name, annotations, nodes, message) => {
    // The certificate's ID is looked up before (load-balancers.ts); here it is given.
    const tweak = name.includes("with a certificate") ? { certificateID: "c" } : {};
    expect(() => desiredLoadBalancer(input(annotations, tweak, [...nodes]))).toThrow(message);
  });

  test("spec.loadBalancerSourceRanges wins over allow-rules, as cidr: rules", () => {
    const i = input({ [`${A}allow-rules`]: "ip:192.0.2.9" });
    const service = { ...i.service, spec: { ...i.service.spec, loadBalancerSourceRanges: ["198.51.100.0/24"] } };
    expect(desiredLoadBalancer({ ...i, service }).body.firewall).toEqual({ allow: ["cidr:198.51.100.0/24"], deny: [] });
  });

  test("externalTrafficPolicy Local probes the Service's health check node port", () => {
    const i = input({});
    const service = {
      ...i.service,
      spec: { ...i.service.spec, externalTrafficPolicy: "Local", healthCheckNodePort: 32000 },
    };
    expect(desiredLoadBalancer({ ...i, service }).body.health_check).toMatchObject({ port: 32000, path: "/healthz" });
  });

  test("an existing load balancer keeps its type, network, region, size and other tags; asking otherwise warns", () => {
    const current = {
      id: "lb-1",
      name: "web",
      type: "REGIONAL_NETWORK",
      network: "EXTERNAL",
      network_stack: "IPV4",
      region: { slug: "fra1" },
      size_unit: 4,
      tags: ["team:web"],
    } as CloudLoadBalancer;
    const d = desiredLoadBalancer(input({ [`${A}type`]: "REGIONAL" }, { current }));
    expect(d.body).toMatchObject({ type: "REGIONAL_NETWORK", region: "fra1", size_unit: 4, network_stack: "IPV4" });
    expect(d.body.tags).toEqual(["team:web", "k8s:c", "ccm-service:u-1"]);
    expect(d.warnings).toEqual([
      "do-loadbalancer-type REGIONAL is read at creation: load balancer lb-1 stays REGIONAL_NETWORK",
    ]);
  });

  test("a Node without a Droplet is left out with a warning", () => {
    const i = input({});
    const d = desiredLoadBalancer({ ...i, nodes: [{ node: v4, dropletID: undefined }] });
    expect(d.body.droplet_ids).toEqual([]);
    expect(d.warnings).toEqual(["no Droplet found for Node(s) v4: left out"]);
  });
});
