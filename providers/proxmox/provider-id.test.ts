import { describe, expect, test } from "bun:test";
import { formatProviderID, formatUUIDProviderID, parseProviderID } from "./provider-id.ts";

describe("proxmox provider IDs", () => {
  test.each([
    ["proxmox://east/101", { kind: "vm", region: "east", vmid: 101 }],
    ["proxmox:///101", { kind: "vm", region: "", vmid: 101 }],
    ["proxmox://5B0F7A5E-3C2D-4E1F-9A8B-0C1D2E3F4A5B", { kind: "uuid", uuid: "5b0f7a5e-3c2d-4e1f-9a8b-0c1d2e3f4a5b" }],
  ])("reads %s", (id, want) => {
    expect(parseProviderID(id)).toEqual(want as never);
  });

  test.each([
    ["sandbox://east/101", 'does not start with "proxmox://"'],
    ["proxmox://east/99", "outside 100-999999999"],
    ["proxmox://east/abc", "neither"],
    ["proxmox://east/101/x", "neither"],
    ["proxmox://", "neither"],
  ])("refuses %s, saying why", (id, why) => {
    expect(() => parseProviderID(id)).toThrow(why);
  });

  test("formats both forms so that they read back", () => {
    expect(parseProviderID(formatProviderID("west", 4242))).toEqual({ kind: "vm", region: "west", vmid: 4242 });
    const uuid = "5b0f7a5e-3c2d-4e1f-9a8b-0c1d2e3f4a5b";
    expect(parseProviderID(formatUUIDProviderID(uuid.toUpperCase()))).toEqual({ kind: "uuid", uuid });
    expect(() => formatUUIDProviderID("not-a-uuid")).toThrow("is not a UUID");
  });
});
