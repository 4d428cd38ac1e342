import { describe, expect, test } from "bun:test";
import { InstanceNotFoundError } from "../errors.ts";
import { createCidrAllocator } from "./cidr-allocator.ts";
import { node, useTestCloud } from "./testing.ts";

const t = useTestCloud();

describe("sandbox cidrAllocator", () => {
  test("answers the pod ranges the cloud routes to the node's machine, over the cloud's HTTP API", async () => {
    const m = t.cloud.state.createMachine({ name: "pods-a", podCIDRs: ["10.244.7.0/24", "fd00:10:244:7::/64"] });
    const answer = await createCidrAllocator(t.api).podCIDRs(t.ctx, node("pods-a", { providerID: m.providerID }));
    expect(answer).toEqual(["10.244.7.0/24", "fd00:10:244:7::/64"]);
  });

  test("answers none for a machine the cloud has assigned none", async () => {
    const m = t.cloud.state.createMachine({ name: "pods-b" });
    expect(await createCidrAllocator(t.api).podCIDRs(t.ctx, node("pods-b", { providerID: m.providerID }))).toEqual([]);
  });

  test("a machine that does not exist is InstanceNotFoundError", async () => {
    const asked = createCidrAllocator(t.api).podCIDRs(t.ctx, node("gone", { providerID: "sandbox://m-0000000000" }));
    await expect(asked).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  test("a provider ID of another cloud is refused, naming it", async () => {
    const asked = createCidrAllocator(t.api).podCIDRs(t.ctx, node("x", { providerID: "hcloud://1" }));
    await expect(asked).rejects.toThrow("sandbox/cidr-allocator.podCIDRs hcloud://1: ");
  });
});
