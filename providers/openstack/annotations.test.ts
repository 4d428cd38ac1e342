/**
 * One row per annotation OCCM reads: a valid value and what it does to the load balancer the Service asks for, and
 * an invalid value, refused naming the key. Every declared annotation has its row, and there are OCCM's 31.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { Node, Service } from "../../kube/objects.ts";
import { InvalidAnnotationsError } from "../kit/annotations/declare.ts";
import { INTERNAL_ANNOTATION, OpenStackAnnotations, openStackAnnotations } from "./annotations.ts";
import { cloudConfSchema } from "./config.ts";
import { type DesiredLoadBalancer, desiredLoadBalancer } from "./lb/desired.ts";

const A = "loadbalancer.openstack.org/";
const ID = "8c1fcf6b-3e8e-4b36-9a1b-2f1b5c8f0a7e";
const conf = v.parse(cloudConfSchema, {
  Global: {},
  LoadBalancer: { "floating-network-id": ID, "subnet-id": ID },
  LoadBalancerClass: { public: { "floating-network-id": "11111111-2222-4333-8444-555555555555" } },
  Networking: {},
  Metadata: {},
  Route: {},
});
const config = { loadBalancer: conf.LoadBalancer, loadBalancerClasses: conf.LoadBalancerClass };
const set = openStackAnnotations(conf.LoadBalancer);

const node = (name: string, address: string, labels: Record<string, string> = {}) =>
  ({ metadata: { name, labels }, status: { addresses: [{ type: "InternalIP", address }] } }) as Node;
const nodes = [node("n1", "10.0.0.10", { lb: "yes" }), node("n2", "10.0.0.11")];

function svc(annotations: Record<string, string>, spec: Record<string, unknown> = {}): Service {
  return {
    metadata: { name: "web", namespace: "default", uid: "u-1", annotations },
    spec: { type: "LoadBalancer", ports: [{ protocol: "TCP", port: 80, nodePort: 30080 }], ...spec },
  } as Service;
}

function desired(annotations: Record<string, string>, spec: Record<string, unknown> = {}): DesiredLoadBalancer {
  const service = svc(annotations, spec);
  return desiredLoadBalancer({ service, values: set.parse(service), nodes, clusterName: "k", config });
}

const first = (d: DesiredLoadBalancer) => d.listeners[0];

/** [key, valid value, what it does, what that is, an invalid value]. */
const rows: [string, string, (d: DesiredLoadBalancer) => unknown, unknown, string | undefined][] = [
  [INTERNAL_ANNOTATION, "true", (d) => [d.internal, d.floating], [true, undefined], "yes please"],
  [`${A}node-selector`, "lb=yes", (d) => first(d)?.members.map((m) => m.name), ["n1"], "=x"],
  [`${A}connection-limit`, "100", (d) => first(d)?.listener.connection_limit, 100, "-2"],
  [`${A}floating-network-id`, "", (d) => d.floating, undefined, "not-an-id"],
  [`${A}floating-subnet`, "public-*", (d) => d.floating?.subnetPattern, "public-*", "~(unclosed"],
  [
    `${A}floating-subnet-id`,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    (d) => d.floating?.subnetID,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    "subnet",
  ],
  [`${A}floating-subnet-tags`, "&public,v4", (d) => d.floating?.subnetTags, "&public,v4", "a b"],
  [`${A}class`, "public", (d) => d.floating?.networkID, "11111111-2222-4333-8444-555555555555", "has space"],
  [`${A}keep-floatingip`, "true", (d) => d.keepFloatingIP, true, "maybe"],
  [`${A}port-id`, ID, (d) => d.vip, { portID: ID }, "port-1"],
  [`${A}lb-method`, "LEAST_CONNECTIONS", (d) => first(d)?.pool.lb_algorithm, "LEAST_CONNECTIONS", "RANDOM"],
  [`${A}proxy-protocol`, "v2", (d) => [first(d)?.pool.protocol, d.proxyProtocol], ["PROXYV2", true], "v3"],
  [
    `${A}subnet-id`,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    (d) => d.vip.subnetID,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    "x",
  ],
  [`${A}network-id`, ID, (d) => d.vip.networkID, ID, "net"],
  [
    `${A}member-subnet-id`,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    (d) => first(d)?.members[0]?.subnet_id,
    "2d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f80",
    "x",
  ],
  [`${A}timeout-client-data`, "300000", (d) => first(d)?.listener.timeout_client_data, 300000, "5m"],
  [`${A}timeout-member-connect`, "10000", (d) => first(d)?.listener.timeout_member_connect, 10000, "-1"],
  [`${A}timeout-member-data`, "300000", (d) => first(d)?.listener.timeout_member_data, 300000, "x"],
  [`${A}timeout-tcp-inspect`, "100", (d) => first(d)?.listener.timeout_tcp_inspect, 100, "1.5"],
  [
    `${A}x-forwarded-for`,
    "true",
    (d) => [first(d)?.listener.protocol, first(d)?.listener.insert_headers],
    ["HTTP", { "X-Forwarded-For": "true" }],
    "on",
  ],
  [`${A}flavor-id`, ID, (d) => d.flavorID, ID, "small"],
  [`${A}availability-zone`, "az1", (d) => d.availabilityZone, "az1", "a z"],
  [`${A}enable-health-monitor`, "true", (d) => first(d)?.monitor?.type, "TCP", "sure"],
  [`${A}health-monitor-delay`, "10", (d) => first(d)?.monitor?.delay, 10, "0"],
  [`${A}health-monitor-timeout`, "7", (d) => first(d)?.monitor?.timeout, 7, "7s"],
  [`${A}health-monitor-max-retries`, "2", (d) => first(d)?.monitor?.max_retries, 2, "11"],
  [`${A}health-monitor-max-retries-down`, "4", (d) => first(d)?.monitor?.max_retries_down, 4, "0"],
  [`${A}hostname`, "lb.example.com", (d) => d.hostname, "lb.example.com", "Not A Name"],
  [`${A}load-balancer-address`, "203.0.113.10", (d) => d.name, "kube_service_k_default_web", undefined],
  [
    `${A}default-tls-container-ref`,
    `https://barbican.example:9311/v1/containers/${ID}`,
    (d) => [first(d)?.listener.protocol, first(d)?.pool.protocol],
    ["TERMINATED_HTTPS", "HTTP"],
    "container-1",
  ],
  [`${A}load-balancer-id`, ID, (d) => d.name, "kube_service_k_default_web", "lb-1"],
];

/** What turns the health monitor on, for the rows of its timings. */
const needs: Record<string, Record<string, string>> = {
  [`${A}health-monitor-delay`]: { [`${A}enable-health-monitor`]: "true" },
  [`${A}health-monitor-timeout`]: { [`${A}enable-health-monitor`]: "true" },
  [`${A}health-monitor-max-retries`]: { [`${A}enable-health-monitor`]: "true" },
  [`${A}health-monitor-max-retries-down`]: { [`${A}enable-health-monitor`]: "true" },
};

describe("every annotation OCCM reads", () => {
  test("all 31 are declared, and each has a row here", () => {
    const keys = OpenStackAnnotations.list.map((a) => a.key);
    expect(keys).toHaveLength(31);
    expect(rows.map((r) => r[0]).sort()).toEqual([...keys].sort());
  });

  test.each(rows)("%s=%p does what OCCM does with it", (key, value, effect, expected) => {
    expect(effect(desired({ ...needs[key], [key]: value }))).toEqual(expected);
  });

  test.each(rows.filter((r) => r[4] !== undefined))(
    "%s refuses an invalid value, naming the key",
    (key, _v, _e, _x, bad) => {
      const err = (() => {
        try {
          set.parse(svc({ [key]: bad as string }));
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(InvalidAnnotationsError);
      expect((err as InvalidAnnotationsError).problems.map((p) => p.key)).toEqual([key]);
    },
  );

  test("two invalid ones are reported together, in one error", () => {
    const read = set.read(svc({ [`${A}connection-limit`]: "x", [`${A}lb-method`]: "y" }));
    expect(read.problems.map((p) => p.key)).toEqual([`${A}connection-limit`, `${A}lb-method`]);
  });
});

describe("refusals the annotations alone cannot see", () => {
  test.each([
    [
      "proxy-protocol with x-forwarded-for",
      { [`${A}proxy-protocol`]: "true", [`${A}x-forwarded-for`]: "true" },
      /cannot be used together/,
    ],
    ["a class cloud.conf lacks", { [`${A}class`]: "private" }, /no \[LoadBalancerClass "private"\].*it has public/],
  ])("%s", (_, annotations, message) => {
    expect(() => desired(annotations)).toThrow(message);
  });

  test("the ovn provider refuses an algorithm other than SOURCE_IP_PORT", () => {
    const ovn = { ...config, loadBalancer: { ...config.loadBalancer, "lb-provider": "ovn" } };
    const service = svc({});
    expect(() =>
      desiredLoadBalancer({ service, values: set.parse(service), nodes, clusterName: "k", config: ovn }),
    ).toThrow(/SOURCE_IP_PORT/);
  });

  test("loadBalancerSourceRanges become the listeners' allowed CIDRs; allow-all leaves them off", () => {
    expect(first(desired({}, { loadBalancerSourceRanges: ["192.0.2.0/24"] }))?.listener.allowed_cidrs).toEqual([
      "192.0.2.0/24",
    ]);
    expect(first(desired({}, { loadBalancerSourceRanges: ["0.0.0.0/0"] }))?.listener.allowed_cidrs).toBeUndefined();
  });

  test("Local traffic with a health check port gets OCCM's HTTP monitor on /healthz at that port", () => {
    const d = desired(
      { [`${A}enable-health-monitor`]: "true" },
      { externalTrafficPolicy: "Local", healthCheckNodePort: 32000 },
    );
    expect(first(d)?.monitor).toMatchObject({ type: "HTTP", url_path: "/healthz", expected_codes: "200" });
    expect(first(d)?.members.map((m) => m.monitor_port)).toEqual([32000, 32000]);
  });
});
