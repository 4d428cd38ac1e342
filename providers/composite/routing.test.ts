import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { InstancesV2 } from "../cloud.ts";
import { describeRoute, type NodePart, routeNode } from "./routing.ts";

const part = (name: string, schemes = [name]): NodePart => ({ name, schemes, instances: {} as InstancesV2 });
const parts = [part("sandbox"), part("metal", ["metal", "bmc"])];
const node = (providerID?: string): Node => ({ metadata: { name: "n" }, spec: providerID ? { providerID } : {} });

describe("routing a Node to a part by its provider ID", () => {
  const cases: [string, string | undefined, string][] = [
    ["a declared scheme leads to its part", "sandbox://m-1", 'provider "sandbox" (provider ID sandbox://m-1)'],
    ["any of a part's schemes leads to it", "bmc://rack-1", 'provider "metal" (provider ID bmc://rack-1)'],
    [
      "no provider ID: offered in order",
      undefined,
      'not yet assigned (no provider ID): offered to "sandbox", then "metal"',
    ],
    [
      "an undeclared scheme: no part",
      "hrobot://1",
      'no configured provider: none of sandbox, metal declares scheme "hrobot"',
    ],
    [
      "a scheme compared exactly (case and all)",
      "Sandbox://m-1",
      'no configured provider: none of sandbox, metal declares scheme "Sandbox"',
    ],
    ["no scheme at all: no part", "m-1", 'no configured provider: provider ID "m-1" has no scheme'],
  ];
  for (const [name, providerID, expected] of cases) {
    test(name, () => {
      expect(describeRoute(parts, node(providerID))).toBe(expected);
    });
  }

  test("the route names the part object itself, for the caller to ask", () => {
    const route = routeNode(parts, node("metal://x"));
    expect(route.kind === "part" && route.part).toBe(parts[1] as NodePart);
  });
});
