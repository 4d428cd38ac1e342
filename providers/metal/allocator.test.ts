import { describe, test } from "bun:test";
import { runScenario, type Scenario, service } from "./testing.ts";

const v4 = { "cidr-global": "192.0.2.0/29" };
const dual = { "cidr-global": "192.0.2.0/29,2001:db8::/125" };

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

describe.each([
  ["allocation and release", allocation],
  ["exhaustion", exhaustion],
  ["per-namespace pools and the global fallback", namespaces],
  ["dual stack", dualStack],
])("%s", (_, scenarios) => {
  test.each(scenarios.map((s) => [s.name, s] as const))("%s", (_name, s) => runScenario(s));
});
