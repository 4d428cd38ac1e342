import { describe, expect, test } from "bun:test";
import { localities } from "../../sandbox/scaleway/testdata/sdk-facts.ts";
import { baremetalZones, instanceZones, regionOf } from "./lookup.ts";

describe("the zones the provider walks", () => {
  test("are each product's zones as the official SDK lists them", () => {
    expect([...instanceZones]).toEqual([...localities.instance]);
    expect([...baremetalZones]).toEqual([...localities.baremetal]);
  });

  test.each([
    ["fr-par-1", "fr-par"],
    ["nl-ams-3", "nl-ams"],
    ["pl-waw-2", "pl-waw"],
  ])("%s is in region %s", (zone, region) => {
    expect(regionOf(zone)).toBe(region);
  });
});
