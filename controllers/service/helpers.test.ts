import { describe, expect, test } from "bun:test";
import type { LoadBalancerStatus } from "../../kube/objects.ts";
import {
  getLoadBalancerSourceRanges,
  getServiceHealthCheckPathPort,
  isAllowAll,
  loadBalancerStatusEqual,
  needsHealthCheck,
  requestsOnlyLocalTraffic,
  SourceRangesError,
} from "./helpers.ts";
import { annotations, service, spec, type } from "./test-fixtures.ts";

const annotationKey = "service.beta.kubernetes.io/load-balancer-source-ranges";
const annotationError = (value: string) =>
  `${annotationKey}: ${value} is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24`;
const specError = (list: string, detail: string) =>
  `service.Spec.LoadBalancerSourceRanges: ${list} is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: ${detail}`;

describe("getLoadBalancerSourceRanges", () => {
  test.each([
    ["nothing set allows all", service("s"), ["0.0.0.0/0"]],
    ["a blank annotation allows all", service("s", annotations({ [annotationKey]: "  " })), ["0.0.0.0/0"]],
    [
      "the annotation, trimmed and normalised",
      service("s", annotations({ [annotationKey]: " 10.0.0.1/24 , 192.168.2.0/24 " })),
      ["10.0.0.0/24", "192.168.2.0/24"],
    ],
    [
      "the spec field wins over the annotation",
      service(
        "s",
        spec({ loadBalancerSourceRanges: ["10.1.0.0/16"] }),
        annotations({ [annotationKey]: "10.2.0.0/16" }),
      ),
      ["10.1.0.0/16"],
    ],
    [
      "an empty spec field falls back to the annotation",
      service("s", spec({ loadBalancerSourceRanges: [] }), annotations({ [annotationKey]: "10.2.0.0/16" })),
      ["10.2.0.0/16"],
    ],
    [
      "duplicates collapse after normalising",
      service("s", spec({ loadBalancerSourceRanges: ["10.0.0.1/8", "10.0.0.0/8", " 2001:DB8::/32"] })),
      ["10.0.0.0/8", "2001:db8::/32"],
    ],
  ])("%s", (_name, svc, want) => {
    expect([...getLoadBalancerSourceRanges(svc)]).toEqual(want);
  });

  test.each(["10.0.0.1/33", "foo.bar", "10.0.0.1/32,*", "10.0.0.1/32,", "10.0.0.1/32, ", "10.0.0.1"])(
    "rejects the annotation %p with upstream's message",
    (value) => {
      const svc = service("s", annotations({ [annotationKey]: value }));
      expect(() => getLoadBalancerSourceRanges(svc)).toThrow(new SourceRangesError(annotationError(value.trim())));
    },
  );

  test.each([
    [["10.0.0.1/33"], "[10.0.0.1/33]", "invalid CIDR address: 10.0.0.1/33"],
    [["10.0.0.0/8", " foo.bar "], "[10.0.0.0/8  foo.bar ]", "invalid CIDR address: foo.bar"],
    [["10.0.0.1"], "[10.0.0.1]", "invalid CIDR address: 10.0.0.1"],
  ])("rejects the spec field %p with upstream's message", (ranges, list, detail) => {
    const svc = service("s", spec({ loadBalancerSourceRanges: ranges }));
    expect(() => getLoadBalancerSourceRanges(svc)).toThrow(specError(list, detail));
  });

  test.each([
    [["0.0.0.0/0"], true],
    [["192.168.0.0/0"], true],
    [["10.0.0.0/8", "0.0.0.0/0"], true],
    [["10.0.0.0/8"], false],
    [["::/0"], false],
  ])("allow-all of %p is %p", (ranges, want) => {
    expect(isAllowAll(getLoadBalancerSourceRanges(service("s", spec({ loadBalancerSourceRanges: ranges }))))).toBe(
      want,
    );
  });
});

describe("traffic policy helpers", () => {
  test.each([
    [
      "LoadBalancer/Local",
      service("s", spec({ externalTrafficPolicy: "Local", healthCheckNodePort: 32000 })),
      true,
      true,
      { path: "/healthz", port: 32000 },
    ],
    [
      "LoadBalancer/Local without port",
      service("s", spec({ externalTrafficPolicy: "Local" })),
      true,
      true,
      { path: "", port: 0 },
    ],
    [
      "LoadBalancer/Cluster",
      service("s", spec({ externalTrafficPolicy: "Cluster", healthCheckNodePort: 32000 })),
      false,
      false,
      { path: "", port: 0 },
    ],
    [
      "NodePort/Local",
      service("s", type("NodePort"), spec({ externalTrafficPolicy: "Local", healthCheckNodePort: 32000 })),
      true,
      false,
      { path: "", port: 0 },
    ],
    [
      "ClusterIP/Local",
      service("s", type("ClusterIP"), spec({ externalTrafficPolicy: "Local" })),
      false,
      false,
      { path: "", port: 0 },
    ],
  ])("%s", (_name, svc, local, health, pathPort) => {
    expect(requestsOnlyLocalTraffic(svc)).toBe(local);
    expect(needsHealthCheck(svc)).toBe(health);
    expect(getServiceHealthCheckPathPort(svc)).toEqual(pathPort);
  });
});

describe("loadBalancerStatusEqual", () => {
  const s = (...ingress: NonNullable<LoadBalancerStatus["ingress"]>): LoadBalancerStatus => ({ ingress });
  test.each<[string, LoadBalancerStatus | undefined, LoadBalancerStatus | undefined, boolean]>([
    ["both absent", undefined, undefined, true],
    ["absent and empty", undefined, s(), true],
    ["same IP", s({ ip: "1.2.3.4" }), s({ ip: "1.2.3.4" }), true],
    ["other IP", s({ ip: "1.2.3.4" }), s({ ip: "1.2.3.5" }), false],
    ["hostname vs none", s({ ip: "1.2.3.4" }), s({ ip: "1.2.3.4", hostname: "lb.example" }), false],
    ["empty hostname vs none", s({ ip: "1.2.3.4", hostname: "" }), s({ ip: "1.2.3.4" }), true],
    ["order matters", s({ ip: "a" }, { ip: "b" }), s({ ip: "b" }, { ip: "a" }), false],
    ["ipMode set vs unset", s({ ip: "a", ipMode: "VIP" }), s({ ip: "a" }), false],
    ["ipMode differs", s({ ip: "a", ipMode: "VIP" }), s({ ip: "a", ipMode: "Proxy" }), false],
    ["ports absent vs empty", s({ ip: "a" }), s({ ip: "a", ports: [] }), true],
    [
      "ports differ",
      s({ ip: "a", ports: [{ port: 80, protocol: "TCP" }] }),
      s({ ip: "a", ports: [{ port: 81, protocol: "TCP" }] }),
      false,
    ],
    [
      "port error set vs unset",
      s({ ip: "a", ports: [{ port: 80, protocol: "TCP", error: "x" }] }),
      s({ ip: "a", ports: [{ port: 80, protocol: "TCP" }] }),
      false,
    ],
    [
      "same ports",
      s({ ip: "a", ports: [{ port: 80, protocol: "TCP" }] }),
      s({ ip: "a", ports: [{ port: 80, protocol: "TCP" }] }),
      true,
    ],
  ])("%s: %p", (_name, a, b, want) => {
    expect(loadBalancerStatusEqual(a, b)).toBe(want);
    expect(loadBalancerStatusEqual(b, a)).toBe(want);
  });
});
