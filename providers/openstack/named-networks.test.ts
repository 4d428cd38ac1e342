import { describe, expect, test } from "bun:test";
import { checkNamedNetworks, namedNetworks } from "./named-networks.ts";

const ctx = { signal: new AbortController().signal };
const known = new Set(["net-1", "sub-1"]);
const lookups = {
  networkName: async (_: unknown, id: string) => (known.has(id) ? "public" : undefined),
  subnetExists: async (_: unknown, id: string) => known.has(id),
};

describe("the networks the configuration names", () => {
  test.each([
    ["none", {}, {}, []],
    [
      "[LoadBalancer]'s, networks then subnets",
      { "subnet-id": "sub-1", "floating-network-id": "net-1" },
      {},
      ["[LoadBalancer] floating-network-id=net-1", "[LoadBalancer] subnet-id=sub-1"],
    ],
    [
      "a class's, under its own section",
      {},
      { b: { "floating-subnet-id": "sub-1" } },
      ['[LoadBalancerClass "b"] floating-subnet-id=sub-1'],
    ],
  ])("lists %s", (_name, loadBalancer, loadBalancerClasses, expected) => {
    const named = namedNetworks({ loadBalancer, loadBalancerClasses } as never);
    expect(named.map((n) => `${n.key}=${n.id}`)).toEqual(expected);
  });

  test("passes when Neutron has each, and names every one it has not", async () => {
    const ok = namedNetworks({ loadBalancer: { "network-id": "net-1" }, loadBalancerClasses: {} } as never);
    await checkNamedNetworks(ctx, ok, lookups);
    const bad = namedNetworks({
      loadBalancer: { "network-id": "net-9", "member-subnet-id": "sub-9" },
      loadBalancerClasses: {},
    } as never);
    await expect(checkNamedNetworks(ctx, bad, lookups)).rejects.toThrow(
      "[LoadBalancer] network-id=net-9: no network of this ID in the project; [LoadBalancer] member-subnet-id=sub-9: no subnet of this ID in the project",
    );
  });
});
