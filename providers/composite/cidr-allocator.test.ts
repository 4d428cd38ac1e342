import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { CidrAllocator, InstancesV2 } from "../cloud.ts";
import { InstanceNotFoundError } from "../errors.ts";
import { type AllocatingPart, compositeCidrAllocator } from "./cidr-allocator.ts";

const ctx = { signal: new AbortController().signal };
const instances = {} as InstancesV2;
const allocator = (ranges: string[]): CidrAllocator => ({ podCIDRs: async () => ranges });
const part = (name: string, scheme: string, cidrAllocator?: CidrAllocator): AllocatingPart => ({
  name,
  schemes: [scheme],
  instances,
  cidrAllocator,
});
const node = (providerID: string): Node => ({ metadata: { name: "n1" }, spec: { providerID } });

describe("the composite's pod-range allocator", () => {
  test.each([
    ["no Node part", []],
    ["a Node part without one", [part("cloud", "cloud", allocator(["10.0.1.0/24"])), part("metal", "metal")]],
  ])("is not offered with %s", (_name, parts) => {
    expect(compositeCidrAllocator(parts)).toBeUndefined();
  });

  test.each([
    ["cloud://1", ["10.0.1.0/24"]],
    ["metal://rack-1", ["10.0.2.0/24", "fd00::/64"]],
  ])("asks the part that owns %s", async (providerID, expected) => {
    const both = compositeCidrAllocator([
      part("cloud", "cloud", allocator(["10.0.1.0/24"])),
      part("metal", "metal", allocator(["10.0.2.0/24", "fd00::/64"])),
    ]);
    expect(await both?.podCIDRs(ctx, node(providerID))).toEqual(expected);
  });

  test("answers a provider ID no part declares as not found, naming the schemes", async () => {
    const one = compositeCidrAllocator([part("cloud", "cloud", allocator([]))]);
    const err = await one?.podCIDRs(ctx, node("other://9")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InstanceNotFoundError);
    expect((err as Error).message).toContain('scheme "other"');
  });
});
