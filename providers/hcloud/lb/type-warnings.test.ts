import { describe, expect, test } from "bun:test";
import { type LoadBalancerTypeInfo, loadBalancerTypeWarnings } from "./type-warnings.ts";

const NOW = Date.parse("2026-11-25T09:00:00Z");
const lb11: LoadBalancerTypeInfo = { name: "lb11", deprecation: null };
const phasedOut = (unavailable_after: string): LoadBalancerTypeInfo => ({
  name: "lb11",
  deprecation: { announced: "2026-09-01T00:00:00+00:00", unavailable_after },
});

describe("loadBalancerTypeWarnings", () => {
  const rows: [string, boolean, LoadBalancerTypeInfo, string[]][] = [
    ["a configured type that is not phased out: nothing", true, lb11, []],
    ["a type without deprecation field (older answers): nothing", true, { name: "lb11" }, []],
    [
      "no type configured: LoadBalancerTypeUnconfigured naming the annotation and the variable",
      false,
      lb11,
      [
        "LoadBalancerTypeUnconfigured: no load balancer type is set, which will be required in the future: set the annotation load-balancer.hetzner.cloud/type on the Service, or HCLOUD_LOAD_BALANCERS_TYPE for the cluster (new load balancers get lb11 until then)",
      ],
    ],
    [
      "a deprecated type still on sale: LoadBalancerTypeDeprecated with the last day",
      true,
      phasedOut("2026-12-01T00:00:00+00:00"),
      [
        'LoadBalancerTypeDeprecated: load balancer type "lb11" is deprecated and can be ordered until 2026-12-01 only; choose another with the annotation load-balancer.hetzner.cloud/type or HCLOUD_LOAD_BALANCERS_TYPE',
      ],
    ],
    [
      "a type past its end of sale: LoadBalancerTypeDeprecated saying it can no longer be ordered",
      true,
      phasedOut("2026-11-01T00:00:00+00:00"),
      [
        'LoadBalancerTypeDeprecated: load balancer type "lb11" is no longer available to order (since 2026-11-01); choose another with the annotation load-balancer.hetzner.cloud/type or HCLOUD_LOAD_BALANCERS_TYPE',
      ],
    ],
    [
      "unconfigured and deprecated: both, unconfigured first",
      false,
      phasedOut("2026-12-01T00:00:00+00:00"),
      [
        expect.stringMatching(/^LoadBalancerTypeUnconfigured: /),
        expect.stringMatching(/^LoadBalancerTypeDeprecated: .*until 2026-12-01/),
      ],
    ],
    [
      "an end of sale that is no time: named as the API wrote it, still on sale",
      true,
      phasedOut("soon"),
      [expect.stringContaining('"lb11" is deprecated and can be ordered until soon only')],
    ],
  ];
  test.each(rows)("%s", (_name, configured, type, want) => {
    const got = loadBalancerTypeWarnings({ configured, type, now: NOW }).map((w) => `${w.reason}: ${w.message}`);
    expect(got).toEqual(want);
  });
});
