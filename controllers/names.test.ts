import { describe, expect, test } from "bun:test";
import { canonicalizeControllerList, enabledControllers, validateControllerList } from "./names.ts";

describe("--controllers", () => {
  test.each([
    [
      "the default '*' enables every controller",
      ["*"],
      [
        "cloud-node-controller",
        "cloud-node-lifecycle-controller",
        "service-lb-controller",
        "node-route-controller",
        "node-ipam-controller",
      ],
    ],
    [
      "'*,-route' disables the route controller by alias",
      ["*", "-route"],
      ["cloud-node-controller", "cloud-node-lifecycle-controller", "service-lb-controller", "node-ipam-controller"],
    ],
    ["a name without '*' enables only that one", ["service"], ["service-lb-controller"]],
    ["an empty list enables nothing", [], []],
    [
      "the first entry naming a controller wins",
      ["-service", "service", "*"],
      ["cloud-node-controller", "cloud-node-lifecycle-controller", "node-route-controller", "node-ipam-controller"],
    ],
    [
      "canonical names work like aliases",
      ["*", "-node-route-controller", "-cloud-node-lifecycle-controller", "-nodeipam"],
      ["cloud-node-controller", "service-lb-controller"],
    ],
  ])("%s", (_name, list, want) => {
    expect(enabledControllers(list) as string[]).toEqual(want);
  });

  test("rewrites aliases to canonical names and keeps a leading dash", () => {
    expect(canonicalizeControllerList(["service", "-route", "*", "-cloud-node-lifecycle-controller"])).toEqual([
      "service-lb-controller",
      "-node-route-controller",
      "*",
      "-cloud-node-lifecycle-controller",
    ]);
  });

  test("reports every unknown entry by its name without the dash, in upstream's words", () => {
    expect(validateControllerList(["*", "-bogus", "bogus-ipam", "route"])).toEqual([
      '"bogus" is not in the list of known controllers',
      '"bogus-ipam" is not in the list of known controllers',
    ]);
  });
});
