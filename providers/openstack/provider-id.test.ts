import { describe, expect, test } from "bun:test";
import { ProviderIDError } from "../kit/provider-id.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

const ID = "8c3d4e5f-1a2b-4c3d-9e8f-0a1b2c3d4e5f";

describe("OpenStack provider IDs", () => {
  test.each([
    [`openstack:///${ID}`, ID, undefined],
    [`openstack://RegionOne/${ID}`, ID, "RegionOne"],
    [`openstack://GRA11/${ID}`, ID, "GRA11"],
    [ID, ID, undefined],
  ])("reads %s as server %s in region %p", (providerID, id, region) => {
    expect(parseProviderID(providerID)).toEqual({ id, region });
  });

  test.each([
    [ID, undefined, `openstack:///${ID}`],
    [ID, "RegionOne", `openstack://RegionOne/${ID}`],
  ])("formats server %s in region %p as %s, which reads back", (id, region, providerID) => {
    expect(formatProviderID(id, region)).toBe(providerID);
    expect(parseProviderID(providerID)).toEqual({ id, region });
  });

  test.each([
    "",
    "openstack://",
    "openstack:///",
    "openstack:////x",
    `openstack://Region/One/${ID}`,
    `openstack:///${ID}/`,
    `aws:///${ID}`,
    `OpenStack:///${ID}`,
    `openstack:///has space`,
  ])("refuses %p", (providerID) => {
    expect(() => parseProviderID(providerID)).toThrow(ProviderIDError);
  });

  test("refuses to format an ID or region no provider ID can carry", () => {
    expect(() => formatProviderID("a/b")).toThrow(ProviderIDError);
    expect(() => formatProviderID(ID, "Region/One")).toThrow(ProviderIDError);
  });
});
