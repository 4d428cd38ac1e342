import { describe, expect, test } from "bun:test";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

describe("metal provider IDs", () => {
  test.each([
    ["metal://node-1", "node-1"],
    ["metal://n1.rack-2.lab", "n1.rack-2.lab"],
    ["metal://0", "0"],
  ])("%p round-trips", (providerID, name) => {
    expect(parseProviderID(providerID)).toBe(name);
    expect(formatProviderID(name)).toBe(providerID);
  });

  test.each([
    ["", /does not start with/],
    ["node-1", /does not start with/],
    ["Metal://node-1", /does not start with/],
    ["metal:/node-1", /does not start with/],
    ["metal://", /no valid machine name/],
    ["metal:///node-1", /no valid machine name/],
    ["metal://Node-1", /no valid machine name/],
    ["metal://node_1", /no valid machine name/],
    ["metal://node-1/x", /no valid machine name/],
    ["metal://-node", /no valid machine name/],
    ["metal://node-1 ", /no valid machine name/],
  ])("refuses %p", (providerID, reason) => {
    expect(() => parseProviderID(providerID)).toThrow(reason);
  });

  test.each(["", "A", "a b", "a/b", "a_b", "x".repeat(254)])("cannot form one from %p", (name) => {
    expect(() => formatProviderID(name)).toThrow(/cannot form a provider ID/);
  });
});
