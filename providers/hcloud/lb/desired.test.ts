import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { Node, Service } from "../../../kube/objects.ts";
import { annotationPrefix as A, hcloudAnnotations } from "../annotations.ts";
import { hcloudConfigSchema } from "../config.ts";
import { addresses, node, providerID } from "../testing.ts";
import { type DesiredInput, type DesiredLoadBalancer, desiredLoadBalancer } from "./desired.ts";

interface Case {
  readonly annotations?: Record<string, string>;
  readonly env?: Record<string, string>;
  readonly nodes?: readonly Node[];
  readonly ports?: NonNullable<Service["spec"]>["ports"];
  readonly input?: Partial<DesiredInput>;
}

function desiredOf(c: Case = {}): DesiredLoadBalancer {
  const config = v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-", HCLOUD_LOAD_BALANCERS_LOCATION: "fsn1", ...c.env });
  const service: Service = {
    metadata: { name: "web", namespace: "default", uid: "0000-1111", annotations: c.annotations ?? {} },
    spec: { ports: c.ports ?? [{ port: 80, nodePort: 30080, protocol: "TCP" }] },
  };
  return desiredLoadBalancer({
    service,
    values: hcloudAnnotations(config.loadBalancers).parse(service),
    nodes: c.nodes ?? [node("n1", providerID("hcloud://1")), node("n2", providerID("hcloud://2"))],
    config,
    ...c.input,
  });
}

describe("desiredLoadBalancer", () => {
  const rows: readonly (readonly [string, Case, (d: DesiredLoadBalancer) => void])[] = [
    [
      "without annotations: Kubernetes' default name, lb11 in the configured location, a TCP listener with a TCP check",
      {},
      (d) => {
        expect(d).toMatchObject({ uid: "0000-1111", name: "a00001111", create: { type: "lb11", location: "fsn1" } });
        expect(d.type).toBeUndefined();
        expect(d.rename).toBeUndefined();
        expect(d.services).toEqual([
          {
            listen_port: 80,
            protocol: "tcp",
            destination_port: 30080,
            proxyprotocol: false,
            health_check: { protocol: "tcp", port: 30080, interval: 15, timeout: 10, retries: 3 },
          },
        ]);
        expect(d.targets).toEqual([
          { type: "server", server: { id: 1 }, use_private_ip: false },
          { type: "server", server: { id: 2 }, use_private_ip: false },
        ]);
        expect(d.warnings).toEqual([]);
      },
    ],
    [
      "the type is changed in place only when named by the annotation or HCLOUD_LOAD_BALANCERS_TYPE",
      { env: { HCLOUD_LOAD_BALANCERS_TYPE: "lb21" } },
      (d) => expect(d).toMatchObject({ type: "lb21", create: { type: "lb21" } }),
    ],
    [
      "the location wins over the network zone; an empty location clears the setting",
      { annotations: { [`${A}location`]: "", [`${A}network-zone`]: "eu-central" } },
      (d) => expect(d.create).toEqual({ type: "lb11", networkZone: "eu-central" }),
    ],
    [
      "HTTP options on a TCP listener are not sent, and say so",
      { annotations: { [`${A}http-sticky-sessions`]: "true" } },
      (d) => {
        expect(d.services[0]?.http).toBeUndefined();
        expect(d.warnings).toEqual([expect.stringContaining("protocol is tcp, so the HTTP options (sticky_sessions)")]);
      },
    ],
    [
      "a health-check setting makes a check of its own, its protocol the port's and its port the NodePort",
      {
        annotations: {
          [`${A}protocol`]: "http",
          [`${A}health-check-interval`]: "5s",
          [`${A}health-check-http-path`]: "/healthz",
        },
      },
      (d) =>
        expect(d.services[0]?.health_check).toEqual({
          protocol: "http",
          port: 30080,
          interval: 5,
          timeout: 10,
          retries: 3,
          http: { path: "/healthz" },
        }),
    ],
    [
      "HTTP health-check options need an HTTP check (hccm ignores them on TCP)",
      { annotations: { [`${A}health-check-http-path`]: "/healthz" } },
      (d) =>
        expect(d.services[0]?.health_check).toEqual({
          protocol: "tcp",
          port: 30080,
          interval: 15,
          timeout: 10,
          retries: 3,
        }),
    ],
    [
      "the health-check settings are defaults",
      { env: { HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES: "2" } },
      (d) =>
        expect(d.services[0]?.health_check).toEqual({
          protocol: "tcp",
          port: 30080,
          interval: 15,
          timeout: 10,
          retries: 2,
        }),
    ],
    [
      "a check is always complete: Hetzner's interval, timeout and retries where nothing sets them",
      { annotations: { [`${A}health-check-port`]: "8080" } },
      (d) =>
        expect(d.services[0]?.health_check).toEqual({
          protocol: "tcp",
          port: 8080,
          interval: 15,
          timeout: 10,
          retries: 3,
        }),
    ],
    [
      "the settings' durations in seconds, as the API takes them",
      {
        env: { HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL: "30s", HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT: "5s" },
      },
      (d) =>
        expect(d.services[0]?.health_check).toEqual({
          protocol: "tcp",
          port: 30080,
          interval: 30,
          timeout: 5,
          retries: 3,
        }),
    ],
    [
      "a UDP port is left out with a warning",
      {
        ports: [
          { port: 80, nodePort: 30080, protocol: "TCP" },
          { port: 53, nodePort: 30053, protocol: "UDP" },
        ],
      },
      (d) => {
        expect(d.services.map((s) => s.listen_port)).toEqual([80]);
        expect(d.warnings).toEqual([expect.stringContaining("port 53/UDP")]);
      },
    ],
    [
      "the node selector picks the targets",
      {
        annotations: { [`${A}node-selector`]: "edge" },
        nodes: [
          node("n1", providerID("hcloud://1"), (n) => {
            n.metadata = { ...n.metadata, labels: { edge: "" } };
          }),
          node("n2", providerID("hcloud://2")),
        ],
      },
      (d) => expect(d.targets).toEqual([{ type: "server", server: { id: 1 }, use_private_ip: false }]),
    ],
    [
      "a Robot Node without Robot is no target, with a warning",
      { nodes: [node("bm", providerID("hrobot://321"))] },
      (d) => {
        expect(d.targets).toEqual([]);
        expect(d.warnings).toEqual([expect.stringContaining("ROBOT_ENABLED is off")]);
      },
    ],
    [
      "Robot without credentials and use-private-ip: the Node's InternalIP (hccm's LB-only mode)",
      {
        env: { ROBOT_ENABLED: "true", HCLOUD_NETWORK: "k8s", HCLOUD_NETWORK_ROUTES_ENABLED: "false" },
        annotations: { [`${A}use-private-ip`]: "true" },
        nodes: [node("bm", providerID("hrobot://321"), addresses({ type: "InternalIP", address: "10.0.3.4" }))],
        input: { networkID: 5 },
      },
      (d) => expect(d.targets).toEqual([{ type: "ip", ip: { ip: "10.0.3.4" } }]),
    ],
    [
      "Robot with credentials: the server's main IP from Robot",
      {
        env: { ROBOT_ENABLED: "true" },
        nodes: [node("bm", providerID("hrobot://321"))],
        input: {
          robotServers: new Map([
            [321, { number: 321, name: "bm", ip: "198.51.100.9", product: "AX", dc: "FSN1", cancelled: false }],
          ]),
        },
      },
      (d) => expect(d.targets).toEqual([{ type: "ip", ip: { ip: "198.51.100.9" } }]),
    ],
    [
      "the private network with the private-ipv4 and subnet annotations",
      {
        annotations: { [`${A}private-ipv4`]: "10.0.1.5", [`${A}private-subnet-ip-range`]: "10.0.1.0/24" },
        input: { networkID: 5 },
      },
      (d) => expect(d.network).toEqual({ id: 5, ip: "10.0.1.5", ipRange: "10.0.1.0/24" }),
    ],
    [
      "ingress: hostname, IPv6 and private ingress as the annotations say",
      {
        annotations: {
          [`${A}hostname`]: "lb.example.com",
          [`${A}ipv6-disabled`]: "true",
          [`${A}disable-private-ingress`]: "true",
        },
      },
      (d) => expect(d.ingress).toEqual({ hostname: "lb.example.com", ipv6: false, privateIngress: false }),
    ],
  ];

  test.each(rows)("%s", (_name, c, check) => check(desiredOf(c)));

  const refusals: readonly (readonly [string, Case, string])[] = [
    ["use-private-ip without a network", { annotations: { [`${A}use-private-ip`]: "true" } }, "set HCLOUD_NETWORK"],
    ["a port without a NodePort", { ports: [{ port: 80, protocol: "TCP" }] }, "port 80 has no nodePort"],
    [
      "no public interface without a network",
      { annotations: { [`${A}disable-public-network`]: "true" } },
      "reachable only over a private network: set HCLOUD_NETWORK",
    ],
    [
      "no public interface while targets use public IPs",
      { annotations: { [`${A}disable-public-network`]: "true" }, input: { networkID: 5 } },
      `needs ${A}use-private-ip=true`,
    ],
  ];

  test.each(refusals)("refuses %s, saying what to change", (_name, c, message) => {
    expect(() => desiredOf(c)).toThrow(message);
  });
});
