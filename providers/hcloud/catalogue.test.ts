import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { catalogueIssues, type HcloudCatalogue } from "./catalogue.ts";
import { hcloudConfigSchema } from "./config.ts";

const catalogue: HcloudCatalogue = {
  locations: [
    { name: "fsn1", networkZone: "eu-central" },
    { name: "nbg1", networkZone: "eu-central" },
    { name: "ash", networkZone: "us-east" },
  ],
  loadBalancerTypes: ["lb11", "lb21", "lb31"],
};
const lb = (env: Record<string, string>) => v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-", ...env }).loadBalancers;

describe("the load-balancer settings against the catalogue", () => {
  test.each([
    [{}, []],
    [{ HCLOUD_LOAD_BALANCERS_LOCATION: "nbg1", HCLOUD_LOAD_BALANCERS_TYPE: "lb21" }, []],
    [{ HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: "us-east" }, []],
    [
      { HCLOUD_LOAD_BALANCERS_LOCATION: "mars1" },
      ["HCLOUD_LOAD_BALANCERS_LOCATION=mars1 is not a location: fsn1, nbg1, ash"],
    ],
    [
      { HCLOUD_LOAD_BALANCERS_NETWORK_ZONE: "moon" },
      ["HCLOUD_LOAD_BALANCERS_NETWORK_ZONE=moon is not a network zone: eu-central, us-east"],
    ],
    [
      { HCLOUD_LOAD_BALANCERS_TYPE: "lb999", HCLOUD_LOAD_BALANCERS_LOCATION: "mars1" },
      [
        "HCLOUD_LOAD_BALANCERS_LOCATION=mars1 is not a location: fsn1, nbg1, ash",
        "HCLOUD_LOAD_BALANCERS_TYPE=lb999 is not a load balancer type: lb11, lb21, lb31",
      ],
    ],
  ] as const)("%j: %j", (env, issues) => {
    expect(catalogueIssues(lb(env), catalogue)).toEqual([...issues]);
  });

  test("a type is not judged when the types were not read", () => {
    expect(catalogueIssues(lb({ HCLOUD_LOAD_BALANCERS_TYPE: "lb999" }), { locations: catalogue.locations })).toEqual(
      [],
    );
  });
});
