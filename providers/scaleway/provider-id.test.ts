import { describe, expect, test } from "bun:test";
import { ProviderIDError } from "../kit/provider-id.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

const ID = "0788e6f4-55b0-42e2-936f-d0c5ecd49a13";

describe("Scaleway provider IDs", () => {
  test.each([
    [`scaleway://instance/fr-par-1/${ID}`, { product: "instance", zone: "fr-par-1", id: ID }],
    [`scaleway://instance/pl-waw-3/${ID}`, { product: "instance", zone: "pl-waw-3", id: ID }],
    [`scaleway://baremetal/fr-par-2/${ID}`, { product: "baremetal", zone: "fr-par-2", id: ID }],
    [`scaleway://baremetal/nl-ams-1/${ID}`, { product: "baremetal", zone: "nl-ams-1", id: ID }],
  ] as const)("reads %s and formats it back", (providerID, ref) => {
    expect(parseProviderID(providerID)).toEqual(ref);
    expect(formatProviderID(ref.product, ref.zone, ref.id)).toBe(providerID);
  });

  test("reads scw CCM's legacy scaleway://<uuid> as an Instance without a zone", () => {
    expect(parseProviderID(`scaleway://${ID}`)).toEqual({ product: "instance", zone: undefined, id: ID });
  });

  test.each([
    "",
    "scaleway://",
    `scaleway:/${ID}`,
    `Scaleway://${ID}`,
    `scaleway://${ID.toUpperCase()}`,
    "scaleway://12345",
    `scaleway://instance/${ID}`,
    `scaleway://lb/fr-par-1/${ID}`,
    `scaleway://instance/fr-par/${ID}`,
    `scaleway://instance/FR-PAR-1/${ID}`,
    `scaleway://instance/fr-par-1/${ID}/extra`,
    `scaleway://instance/fr-par-1/not-a-uuid`,
    `scaleway://instance//${ID}`,
    `k3s://node-1`,
    `hcloud://12`,
  ])("refuses %p", (providerID) => {
    expect(() => parseProviderID(providerID)).toThrow(ProviderIDError);
  });

  test("refuses to format a zone or ID it would not read back", () => {
    expect(() => formatProviderID("instance", "fr-par", ID)).toThrow(ProviderIDError);
    expect(() => formatProviderID("baremetal", "fr-par-2", "x")).toThrow(ProviderIDError);
  });
});
