import { describe, expect, test } from "bun:test";
import type { Service, ServicePort } from "../../../kube/objects.ts";
import type { Firewall } from "../api/firewalls.ts";
import {
  ALLOW_ALL_OUTBOUND,
  desiredFirewall,
  FIREWALL_MANAGED_ANNOTATION,
  type FirewallSettings,
  firewallDrift,
  LOAD_BALANCER_ID_ANNOTATION,
  LOAD_BALANCER_NETWORK_ANNOTATION,
  LOAD_BALANCER_TYPE_ANNOTATION,
  planFirewall,
  ruleKey,
} from "./plan.ts";

const settings: FirewallSettings = {
  name: "k8s-public",
  tags: ["k8s-worker"],
  defaultLoadBalancerType: "REGIONAL_NETWORK",
};

type Tweak = (s: Service) => void;
const port = (p: number, nodePort: number, protocol = "TCP"): ServicePort => ({ port: p, nodePort, protocol });
const annotated =
  (annotations: Record<string, string>): Tweak =>
  (s) => {
    s.metadata = { ...s.metadata, annotations: { ...s.metadata?.annotations, ...annotations } };
  };
const local =
  (healthCheckNodePort: number): Tweak =>
  (s) => {
    s.spec = { ...s.spec, externalTrafficPolicy: "Local", healthCheckNodePort };
  };

function svc(name: string, type: string, ports: ServicePort[], ...tweaks: Tweak[]): Service {
  const s: Service = { metadata: { namespace: "default", name }, spec: { type, ports } };
  for (const t of tweaks) t(s);
  return s;
}

const inboundOf = (services: Service[], s: FirewallSettings = settings) =>
  desiredFirewall(services, s).spec.inbound.map(ruleKey);

describe("desiredFirewall", () => {
  test.each([
    [
      "opens each node port of a NodePort Service from anywhere",
      [svc("a", "NodePort", [port(80, 30080), port(53, 30053, "UDP")])],
      ["tcp 30080 0.0.0.0/0,::/0", "udp 30053 0.0.0.0/0,::/0"],
    ],
    [
      "leaves out a NodePort Service marked firewall-managed false",
      [svc("a", "NodePort", [port(80, 30080)], annotated({ [FIREWALL_MANAGED_ANNOTATION]: "false" }))],
      [],
    ],
    [
      "keeps a NodePort Service marked firewall-managed true",
      [svc("a", "NodePort", [port(80, 30080)], annotated({ [FIREWALL_MANAGED_ANNOTATION]: "1" }))],
      ["tcp 30080 0.0.0.0/0,::/0"],
    ],
    ["leaves out ClusterIP Services", [svc("a", "ClusterIP", [port(80, 0)])], []],
    [
      "leaves out a port with no node port yet and an SCTP port",
      [svc("a", "NodePort", [port(80, 0), port(90, 30090, "SCTP")])],
      [],
    ],
    [
      "opens a network load balancer's service ports and kube-proxy's health port from anywhere before it has an ID",
      [svc("lb", "LoadBalancer", [port(443, 31443)])],
      ["tcp 10256 0.0.0.0/0,::/0", "tcp 443 0.0.0.0/0,::/0"],
    ],
    [
      "opens the health port only to the load balancer once the Service carries its ID",
      [svc("lb", "LoadBalancer", [port(443, 31443)], annotated({ [LOAD_BALANCER_ID_ANNOTATION]: "lb-1" }))],
      ["tcp 10256 lb:lb-1", "tcp 443 0.0.0.0/0,::/0"],
    ],
    [
      "checks the Service's health node port under externalTrafficPolicy Local",
      [svc("lb", "LoadBalancer", [port(443, 31443)], local(32000))],
      ["tcp 32000 0.0.0.0/0,::/0", "tcp 443 0.0.0.0/0,::/0"],
    ],
    [
      "opens nothing for a REGIONAL (proxying) load balancer",
      [svc("lb", "LoadBalancer", [port(443, 31443)], annotated({ [LOAD_BALANCER_TYPE_ANNOTATION]: "REGIONAL" }))],
      [],
    ],
    [
      "opens nothing for an INTERNAL load balancer",
      [svc("lb", "LoadBalancer", [port(443, 31443)], annotated({ [LOAD_BALANCER_NETWORK_ANNOTATION]: "INTERNAL" }))],
      [],
    ],
    [
      "opens a shared health port once",
      [svc("a", "LoadBalancer", [port(80, 30001)]), svc("b", "LoadBalancer", [port(80, 30002)])],
      ["tcp 10256 0.0.0.0/0,::/0", "tcp 80 0.0.0.0/0,::/0"],
    ],
  ])("%s", (_name, services, want) => {
    expect(inboundOf(services).sort()).toEqual([...want].sort());
  });

  test("follows DEFAULT_LB_TYPE when a Service does not name its type", () => {
    const lb = svc("lb", "LoadBalancer", [port(443, 31443)]);
    expect(inboundOf([lb], { ...settings, defaultLoadBalancerType: "REGIONAL" })).toEqual([]);
  });

  test("names an invalid annotation in its notes and opens nothing for it", () => {
    const bad = svc("lb", "LoadBalancer", [port(443, 31443)], annotated({ [LOAD_BALANCER_TYPE_ANNOTATION]: "GLOBAL" }));
    const { spec, notes } = desiredFirewall([bad], settings);
    expect(spec.inbound).toEqual([]);
    expect(notes).toEqual([expect.stringContaining(`default/lb: ${LOAD_BALANCER_TYPE_ANNOTATION}="GLOBAL"`)]);
  });

  test("keeps a NodePort Service with an unreadable firewall-managed value, and says so", () => {
    const s = svc("a", "NodePort", [port(80, 30080)], annotated({ [FIREWALL_MANAGED_ANNOTATION]: "perhaps" }));
    const { spec, notes } = desiredFirewall([s], settings);
    expect(spec.inbound.map(ruleKey)).toEqual(["tcp 30080 0.0.0.0/0,::/0"]);
    expect(notes[0]).toContain(FIREWALL_MANAGED_ANNOTATION);
  });

  test("carries the name, the tags and DO CCM's allow-all outbound rules", () => {
    const { spec } = desiredFirewall([], settings);
    expect(spec).toEqual({ name: "k8s-public", inbound: [], outbound: ALLOW_ALL_OUTBOUND, tags: ["k8s-worker"] });
  });
});

describe("planFirewall", () => {
  const want = desiredFirewall([svc("a", "NodePort", [port(80, 30080)])], settings).spec;
  const inCloud = (tweak: Partial<Firewall> = {}): Firewall => ({ id: "fw-1", ...want, ...tweak });

  test("creates the firewall when there is none", () => {
    expect(planFirewall(undefined, want)).toEqual({ kind: "create", spec: want });
  });

  test("does nothing when the cloud's firewall matches, whatever the order and however all ports are spelled", () => {
    const outbound = [...ALLOW_ALL_OUTBOUND]
      .reverse()
      .map((r) => ({ ...r, ports: r.protocol === "icmp" ? "" : "all" }));
    expect(planFirewall(inCloud({ outbound, tags: ["k8s-worker"] }), want)).toEqual({ kind: "none" });
  });

  test.each([
    ["a rule removed by hand", inCloud({ inbound: [] }), ["+ inbound tcp 30080 0.0.0.0/0,::/0"]],
    [
      "a rule added by hand",
      inCloud({
        inbound: [...want.inbound, { protocol: "tcp", ports: "22", addresses: ["0.0.0.0/0"], loadBalancerUIDs: [] }],
      }),
      ["- inbound tcp 22 0.0.0.0/0"],
    ],
    ["a tag changed", inCloud({ tags: ["other"] }), ["+ tag k8s-worker", "- tag other"]],
    [
      "the outbound rules emptied",
      inCloud({ outbound: [] }),
      ["+ outbound icmp all 0.0.0.0/0,::/0", "+ outbound tcp all 0.0.0.0/0,::/0", "+ outbound udp all 0.0.0.0/0,::/0"],
    ],
  ])("updates the firewall after %s, naming the drift", (_name, current, drift) => {
    expect(planFirewall(current, want)).toEqual({ kind: "update", id: "fw-1", spec: want, drift });
  });

  test("firewallDrift is empty for the same firewall", () => {
    expect(firewallDrift(want, want)).toEqual([]);
  });
});
