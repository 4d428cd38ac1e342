import { describe, expect, test } from "bun:test";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

describe("parseProviderID", () => {
  test.each([
    ["sandbox://m-0123456789", "m-0123456789"],
    ["sandbox://42", "42"],
    ["sandbox://Machine_1.a-b", "Machine_1.a-b"],
  ])("accepts %p", (providerID, id) => {
    expect(parseProviderID(providerID)).toBe(id);
    expect(formatProviderID(id)).toBe(providerID);
  });

  test.each([
    ["", /does not start with/],
    ["m-1", /does not start with/],
    ["hcloud://m-1", /does not start with/],
    ["Sandbox://m-1", /does not start with/],
    ["sandbox:/m-1", /does not start with/],
    [" sandbox://m-1", /does not start with/],
    ["sandbox://", /no valid machine ID/],
    ["sandbox:///m-1", /no valid machine ID/],
    ["sandbox://m-1/extra", /no valid machine ID/],
    ["sandbox://m 1", /no valid machine ID/],
    ["sandbox://m-1 ", /no valid machine ID/],
    ["sandbox://-m1", /no valid machine ID/],
    ["sandbox://m-1?x=1", /no valid machine ID/],
  ])("rejects %p", (providerID, reason) => {
    expect(() => parseProviderID(providerID)).toThrow(reason);
  });
});

describe("formatProviderID", () => {
  test.each(["", "a/b", "a b", "-a"])("refuses the ID %p", (id) => {
    expect(() => formatProviderID(id)).toThrow(/cannot form a provider ID/);
  });
});
