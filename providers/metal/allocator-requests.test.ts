import { describe, test } from "bun:test";
import { KubeVipAnnotations, MetalAnnotations } from "./annotations.ts";
import { runScenario, type Scenario, service } from "./testing.ts";

const v4 = { "cidr-global": "192.0.2.0/29" };
const dual = { "cidr-global": "192.0.2.0/29,2001:db8::/125" };
const lbIPs = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips });
/** The kube-vip annotation as the provider writes it, a copy of the record (and no request). */
const echo = (ips: string) => ({ ...lbIPs(ips), [MetalAnnotations.kubeVipEcho]: ips });

const requests: Scenario[] = [
  {
    name: "spec.loadBalancerIP in the pool and free is honoured",
    pools: v4,
    steps: [{ svc: service("a", { loadBalancerIP: "192.0.2.5" }), want: ["192.0.2.5"] }],
  },
  {
    name: "the kube-vip annotation with two addresses is honoured in ipFamilies order",
    pools: dual,
    steps: [
      {
        svc: service("a", {
          policy: "RequireDualStack",
          families: ["IPv6", "IPv4"],
          annotations: lbIPs("192.0.2.3,2001:DB8::4"),
        }),
        want: ["2001:db8::4", "192.0.2.3"],
      },
    ],
  },
  {
    name: "the kube-vip annotation wins over spec.loadBalancerIP",
    pools: v4,
    steps: [
      { svc: service("a", { loadBalancerIP: "192.0.2.5", annotations: lbIPs("192.0.2.6") }), want: ["192.0.2.6"] },
    ],
  },
  {
    name: "a requested address outside the pool is refused with the pool's ranges",
    pools: v4,
    steps: [
      {
        svc: service("a", { loadBalancerIP: "198.51.100.7" }),
        want: /^requested address 198\.51\.100\.7 \(from spec\.loadBalancerIP\) is not in pool "global" \(test pools cidr-global\); its IPv4 ranges are 192\.0\.2\.0-192\.0\.2\.7$/,
      },
    ],
  },
  {
    name: "a requested address in use is refused, naming the holder and what is free",
    pools: v4,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      {
        svc: service("b", { loadBalancerIP: "192.0.2.1" }),
        want: /^requested address 192\.0\.2\.1 \(from spec\.loadBalancerIP\) is in use: held by Service default\/a, and sharing is not allowed for namespace "default"; pool "global" .* has free: 192\.0\.2\.0, 192\.0\.2\.2-192\.0\.2\.7 \(7 of 8\)$/,
      },
    ],
  },
  {
    name: "a request that is not an address is refused",
    pools: v4,
    steps: [
      {
        svc: service("a", { annotations: lbIPs("192.0.2.x") }),
        want: /^requested address "192.0.2.x" \(from annotation kube-vip.io\/loadbalancerIPs\) is not an IP address$/,
      },
    ],
  },
  {
    name: "two addresses for a SingleStack Service are refused",
    pools: dual,
    steps: [
      {
        svc: service("a", { annotations: lbIPs("192.0.2.3,2001:db8::3") }),
        want: /is SingleStack but .* names 2 addresses/,
      },
    ],
  },
  {
    name: "one address for a RequireDualStack Service is refused",
    pools: dual,
    steps: [
      {
        svc: service("a", { policy: "RequireDualStack", loadBalancerIP: "192.0.2.3" }),
        want: /RequireDualStack but spec.loadBalancerIP names only one/,
      },
    ],
  },
  {
    name: "two addresses of one family are refused",
    pools: dual,
    steps: [
      {
        svc: service("a", { policy: "PreferDualStack", annotations: lbIPs("192.0.2.3,192.0.2.4") }),
        want: /names 2 IPv4 addresses; give one per family/,
      },
    ],
  },
  {
    name: "an IPv6 request for an IPv4 SingleStack Service is refused",
    pools: dual,
    steps: [
      {
        svc: service("a", { families: ["IPv4"], loadBalancerIP: "2001:db8::3" }),
        want: /names an IPv6 address but the Service's ipFamilies are IPv4/,
      },
    ],
  },
  {
    name: "changing spec.loadBalancerIP moves the Service and frees the old address",
    pools: v4,
    steps: [
      { svc: service("a", { loadBalancerIP: "192.0.2.5" }), want: ["192.0.2.5"] },
      { svc: service("a", { loadBalancerIP: "192.0.2.6" }), want: ["192.0.2.6"] },
      { svc: service("b", { loadBalancerIP: "192.0.2.5" }), want: ["192.0.2.5"] },
    ],
  },
  {
    name: "the provider's copy of the allocation in the kube-vip annotation is no request; a new spec.loadBalancerIP then is",
    pools: v4,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("a", { annotations: echo("192.0.2.1") }), want: ["192.0.2.1"] },
      { svc: service("a", { annotations: echo("192.0.2.1"), loadBalancerIP: "192.0.2.4" }), want: ["192.0.2.4"] },
    ],
  },
  {
    name: "the user's kube-vip annotation keeps winning over spec.loadBalancerIP once honoured (no flip)",
    pools: v4,
    steps: [
      { svc: service("a", { annotations: lbIPs("192.0.2.6"), loadBalancerIP: "192.0.2.4" }), want: ["192.0.2.6"] },
      { svc: service("a", { annotations: lbIPs("192.0.2.6"), loadBalancerIP: "192.0.2.4" }), want: ["192.0.2.6"] },
      { svc: service("a", { loadBalancerIP: "192.0.2.4" }), want: ["192.0.2.4"] },
    ],
  },
  {
    name: "a refused move keeps the address the Service holds",
    pools: v4,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("b"), want: ["192.0.2.2"] },
      { svc: service("b", { loadBalancerIP: "192.0.2.1" }), want: /is in use/ },
      { svc: service("c"), want: ["192.0.2.3"] },
      { svc: service("b"), want: ["192.0.2.2"] },
    ],
  },
];

const share = { ...v4, "allow-share-global": "true" };
const sharing: Scenario[] = [
  {
    name: "with sharing allowed, a Service may ask for a held address when the ports differ",
    pools: share,
    steps: [
      { svc: service("a", { ports: [["TCP", 80]] }), want: ["192.0.2.1"] },
      { svc: service("b", { ports: [["TCP", 443]], loadBalancerIP: "192.0.2.1" }), want: ["192.0.2.1"] },
      { svc: service("c", { ports: [["UDP", 80]], loadBalancerIP: "192.0.2.1" }), want: ["192.0.2.1"] },
    ],
  },
  {
    name: "sharing is refused when a port clashes",
    pools: share,
    steps: [
      {
        svc: service("a", {
          ports: [
            ["TCP", 80],
            ["TCP", 8080],
          ],
        }),
        want: ["192.0.2.1"],
      },
      {
        svc: service("b", { ports: [["TCP", 8080]], loadBalancerIP: "192.0.2.1" }),
        want: /held by Service default\/a, which also serves TCP\/8080/,
      },
    ],
  },
  {
    name: "a Service without ports takes the whole address",
    pools: share,
    steps: [
      { svc: service("a", { ports: [] }), want: ["192.0.2.1"] },
      { svc: service("b", { loadBalancerIP: "192.0.2.1" }), want: /a Service without ports takes the whole address/ },
    ],
  },
  {
    name: "sharing needs every party's namespace to allow it",
    pools: { ...v4, "allow-share-team-a": "true" },
    steps: [
      { svc: service("a", { namespace: "team-b" }), want: ["192.0.2.1"] },
      {
        svc: service("b", { namespace: "team-a", ports: [["TCP", 443]], loadBalancerIP: "192.0.2.1" }),
        want: /whose namespace "team-b" does not allow sharing/,
      },
    ],
  },
  {
    name: "automatic allocation never picks a held address, even when sharing is allowed",
    pools: share,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("b", { ports: [["TCP", 443]] }), want: ["192.0.2.2"] },
    ],
  },
  {
    name: "a sharer whose ports come to clash is refused and keeps its address",
    pools: share,
    steps: [
      { svc: service("a", { ports: [["TCP", 80]] }), want: ["192.0.2.1"] },
      { svc: service("b", { ports: [["TCP", 443]], loadBalancerIP: "192.0.2.1" }), want: ["192.0.2.1"] },
      {
        svc: service("b", { ports: [["TCP", 80]], loadBalancerIP: "192.0.2.1" }),
        want: /ports now clash on the shared address 192.0.2.1/,
      },
      { svc: service("c", { loadBalancerIP: "192.0.2.1", ports: [["TCP", 443]] }), want: /which also serves TCP\/443/ },
    ],
  },
  {
    name: "releasing one sharer leaves the address held by the other",
    pools: { "range-global": "192.0.2.1-192.0.2.1", "allow-share-global": "true" },
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("b", { ports: [["TCP", 443]], loadBalancerIP: "192.0.2.1" }), want: ["192.0.2.1"] },
      { release: "default/a" },
      { svc: service("c"), want: /none of its 1 IPv4 addresses is free/ },
      { release: "default/b" },
      { svc: service("c"), want: ["192.0.2.1"] },
    ],
  },
];

describe.each([
  ["requested addresses", requests],
  ["sharing", sharing],
])("%s", (_, scenarios) => {
  test.each(scenarios.map((s) => [s.name, s] as const))("%s", (_name, s) => runScenario(s));
});
