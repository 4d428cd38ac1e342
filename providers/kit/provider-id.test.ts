import { describe, expect, test } from "bun:test";
import { ProviderIDError, providerIDScheme } from "./provider-id.ts";

const scheme = providerIDScheme({ scheme: "acme", what: "machine ID", pattern: /^[a-z0-9][a-z0-9-]*$/, maxLength: 8 });

describe("a provider-ID scheme", () => {
  test.each([
    ["acme://m-1", "m-1"],
    ["acme://42", "42"],
    ["acme://abcdefgh", "abcdefgh"],
  ])("reads %p and formats it back", (providerID, id) => {
    expect(scheme.parse(providerID)).toBe(id);
    expect(scheme.format(id)).toBe(providerID);
  });

  test.each([
    ["", 'does not start with "acme://"'],
    ["m-1", "does not start with"],
    ["ACME://m-1", "does not start with"],
    ["acme:/m-1", "does not start with"],
    ["acme://", 'has no valid machine ID after "acme://"'],
    ["acme:///m-1", "has no valid machine ID"],
    ["acme://m-1/x", "has no valid machine ID"],
    ["acme://abcdefghi", "has no valid machine ID"],
  ])("refuses %p", (providerID, message) => {
    expect(() => scheme.parse(providerID)).toThrow(ProviderIDError);
    expect(() => scheme.parse(providerID)).toThrow(message);
    expect(scheme.tryParse(providerID)).toBeUndefined();
  });

  test.each(["", "a/b", "-a", "abcdefghi"])("will not format the ID %p", (id) => {
    expect(() => scheme.format(id)).toThrow(`machine ID "${id}" cannot form a provider ID`);
  });
});
