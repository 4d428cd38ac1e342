import { describe, expect, test } from "bun:test";
import { ProviderIDError } from "../kit/provider-id.ts";
import { formatProviderID, parseProviderID } from "./provider-id.ts";

describe("DigitalOcean provider IDs", () => {
  test.each([
    ["digitalocean://1", 1],
    ["digitalocean://3164444", 3164444],
    ["digitalocean://9007199254740991", 9007199254740991],
  ])("reads %s as Droplet %d and formats it back", (id, droplet) => {
    expect(parseProviderID(id)).toBe(droplet);
    expect(formatProviderID(droplet)).toBe(id);
  });

  test.each([
    "",
    "digitalocean://",
    "digitalocean://0",
    "digitalocean://012",
    "digitalocean://-5",
    "digitalocean://12a",
    "digitalocean:///12",
    "DigitalOcean://12",
    "hcloud://12",
    "12",
  ])("refuses %p", (id) => {
    expect(() => parseProviderID(id)).toThrow(ProviderIDError);
  });

  test("refuses to format an ID no Droplet has", () => {
    expect(() => formatProviderID(0)).toThrow(ProviderIDError);
    expect(() => formatProviderID(1.5)).toThrow(ProviderIDError);
  });
});
