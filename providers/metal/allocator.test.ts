import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { AddressBook } from "./address-book.ts";
import { KubeVipAnnotations } from "./annotations.ts";
import { allocate, kubeVipPools, outcome, service } from "./testing.ts";

type Step = { readonly svc: Service; readonly want: readonly string[] | RegExp } | { readonly release: string };

interface Scenario {
  readonly name: string;
  readonly pools: Record<string, string>;
  readonly steps: readonly Step[];
}

const v4 = { "cidr-global": "192.0.2.0/29" };
const dual = { "cidr-global": "192.0.2.0/29,2001:db8::/125" };
const lbIPs = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips });

function run(s: Scenario): void {
  const book = new AddressBook();
  const pools = kubeVipPools(s.pools);
  for (const [i, step] of s.steps.entries()) {
    if ("release" in step) {
      book.release(step.release);
      continue;
    }
    const got = outcome(allocate(book, pools, step.svc));
    const label = `step ${i} (${step.svc.metadata?.namespace}/${step.svc.metadata?.name})`;
    if (step.want instanceof RegExp) expect({ label, got }).toEqual({ label, got: expect.stringMatching(step.want) });
    else expect({ label, got }).toEqual({ label, got: step.want });
  }
}

const allocation: Scenario[] = [
  {
    name: "the first Service gets the pool's first address (.0 skipped as kube-vip does)",
    pools: v4,
    steps: [{ svc: service("a"), want: ["192.0.2.1"] }],
  },
  {
    name: "each Service gets its own address, and asking again changes nothing",
    pools: v4,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("b"), want: ["192.0.2.2"] },
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("c"), want: ["192.0.2.3"] },
    ],
  },
  {
    name: "search-order desc takes the highest address first",
    pools: { ...v4, "search-order": "desc" },
    steps: [
      { svc: service("a"), want: ["192.0.2.7"] },
      { svc: service("b"), want: ["192.0.2.6"] },
    ],
  },
  {
    name: "addresses ending in .0 and .255 are skipped inside ranges too",
    pools: { "range-global": "192.0.2.254-192.0.3.1" },
    steps: [
      { svc: service("a"), want: ["192.0.2.254"] },
      { svc: service("b"), want: ["192.0.3.1"] },
      { svc: service("c"), want: /no free IPv4 address in pool "global"/ },
    ],
  },
  {
    name: "a released address goes to the next Service",
    pools: { "range-global": "192.0.2.10-192.0.2.11" },
    steps: [
      { svc: service("a"), want: ["192.0.2.10"] },
      { svc: service("b"), want: ["192.0.2.11"] },
      { release: "default/a" },
      { svc: service("c"), want: ["192.0.2.10"] },
    ],
  },
  {
    name: "a re-created Service (new UID) does not inherit by name: its old claim is replaced",
    pools: { "range-global": "192.0.2.10-192.0.2.11" },
    steps: [
      { svc: service("a"), want: ["192.0.2.10"] },
      { svc: service("a", { uid: "second" }), want: ["192.0.2.11"] },
    ],
  },
];

const exhaustion: Scenario[] = [
  {
    name: "an exhausted pool names itself and says nothing is free",
    pools: { "range-global": "192.0.2.10-192.0.2.11" },
    steps: [
      { svc: service("a"), want: ["192.0.2.10"] },
      { svc: service("b"), want: ["192.0.2.11"] },
      {
        svc: service("c"),
        want: /^no free IPv4 address in pool "global" \(test pools range-global\): none of its 2 IPv4 addresses is free$/,
      },
    ],
  },
  {
    name: "a namespace pool that is full does not spill into the global pool",
    pools: { ...v4, "range-team-a": "198.51.100.1-198.51.100.1" },
    steps: [
      { svc: service("a", { namespace: "team-a" }), want: ["198.51.100.1"] },
      { svc: service("b", { namespace: "team-a" }), want: /no free IPv4 address in pool for namespace "team-a"/ },
    ],
  },
];

const namespaces: Scenario[] = [
  {
    name: "a namespace with its own pool uses it; others fall back to the global pool",
    pools: { ...v4, "cidr-team-a": "198.51.100.0/30" },
    steps: [
      { svc: service("a", { namespace: "team-a" }), want: ["198.51.100.1"] },
      { svc: service("a", { namespace: "team-b" }), want: ["192.0.2.1"] },
      { svc: service("b", { namespace: "default" }), want: ["192.0.2.2"] },
    ],
  },
  {
    name: "overlapping namespace and global pools never hand out one address twice",
    pools: { "range-global": "192.0.2.1-192.0.2.3", "range-team-a": "192.0.2.1-192.0.2.3" },
    steps: [
      { svc: service("a", { namespace: "team-a" }), want: ["192.0.2.1"] },
      { svc: service("a", { namespace: "team-b" }), want: ["192.0.2.2"] },
      { svc: service("b", { namespace: "team-a" }), want: ["192.0.2.3"] },
      { svc: service("b", { namespace: "team-b" }), want: /no free IPv4 address in pool "global"/ },
    ],
  },
  {
    name: "no pool for the namespace and no global pool says what to configure",
    pools: { "cidr-team-a": "198.51.100.0/30" },
    steps: [
      {
        svc: service("a", { namespace: "team-b" }),
        want: /^no address pool serves namespace "team-b": configure loadBalancer.global or loadBalancer.namespaces.team-b/,
      },
    ],
  },
];

const dualStack: Scenario[] = [
  {
    name: "SingleStack without ipFamilies takes IPv4 when the pool has it",
    pools: dual,
    steps: [{ svc: service("a"), want: ["192.0.2.1"] }],
  },
  {
    name: "SingleStack IPv6 takes IPv6",
    pools: dual,
    steps: [{ svc: service("a", { families: ["IPv6"] }), want: ["2001:db8::"] }],
  },
  {
    name: "RequireDualStack takes one of each, in ipFamilies order",
    pools: dual,
    steps: [
      {
        svc: service("a", { policy: "RequireDualStack", families: ["IPv6", "IPv4"] }),
        want: ["2001:db8::", "192.0.2.1"],
      },
      { svc: service("b", { policy: "RequireDualStack" }), want: ["192.0.2.2", "2001:db8::1"] },
    ],
  },
  {
    name: "PreferDualStack settles for one family when the pool has only that",
    pools: v4,
    steps: [{ svc: service("a", { policy: "PreferDualStack", families: ["IPv4", "IPv6"] }), want: ["192.0.2.1"] }],
  },
  {
    name: "RequireDualStack fails when the pool has no IPv6, saying so",
    pools: v4,
    steps: [
      {
        svc: service("a", { policy: "RequireDualStack" }),
        want: /^no free IPv6 address in pool "global" .* \(the Service is RequireDualStack\): it has no IPv6 addresses$/,
      },
    ],
  },
  {
    name: "going from dual to single stack keeps the first family's address and frees the other",
    pools: { "range-global": "192.0.2.10-192.0.2.10,2001:db8::10-2001:db8::10" },
    steps: [
      { svc: service("a", { policy: "RequireDualStack" }), want: ["192.0.2.10", "2001:db8::10"] },
      { svc: service("a", { families: ["IPv4"] }), want: ["192.0.2.10"] },
      { svc: service("b", { families: ["IPv6"] }), want: ["2001:db8::10"] },
    ],
  },
];

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
    name: "the kube-vip annotation repeating the allocation is no request; a new spec.loadBalancerIP then is",
    pools: v4,
    steps: [
      { svc: service("a"), want: ["192.0.2.1"] },
      { svc: service("a", { annotations: lbIPs("192.0.2.1") }), want: ["192.0.2.1"] },
      { svc: service("a", { annotations: lbIPs("192.0.2.1"), loadBalancerIP: "192.0.2.4" }), want: ["192.0.2.4"] },
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
  ["allocation and release", allocation],
  ["exhaustion", exhaustion],
  ["per-namespace pools and the global fallback", namespaces],
  ["dual stack", dualStack],
  ["requested addresses", requests],
  ["sharing", sharing],
])("%s", (_, scenarios) => {
  test.each(scenarios.map((s) => [s.name, s] as const))("%s", (_name, s) => run(s));
});
