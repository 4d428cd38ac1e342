import { describe, expect, test } from "bun:test";
import { formatCloudProviderID, formatRobotProviderID, parseProviderID, tryParseProviderID } from "./provider-id.ts";

describe("hcloud provider IDs", () => {
  test.each([
    ["a Cloud server", "hcloud://1234", { kind: "cloud", id: 1234 }],
    ["a Cloud server with a large ID", "hcloud://2251799813685247", { kind: "cloud", id: 2251799813685247 }],
    ["a Cloud server with leading zeros, as hccm reads them", "hcloud://0042", { kind: "cloud", id: 42 }],
    ["a Robot server", "hrobot://4321", { kind: "robot", number: 4321, legacy: false }],
    ["a Robot server in the Syself fork's form", "hcloud://bm-4321", { kind: "robot", number: 4321, legacy: true }],
  ])("reads %s (%s)", (_, id, want) => {
    expect(parseProviderID(id)).toEqual(want as never);
  });

  test.each([
    ["another provider's ID", "proxmox://east/101", "has none of the prefixes hcloud://, hrobot:// and hcloud://bm-"],
    ["an ID without a scheme", "foobar/321", "has none of the prefixes"],
    ["an upper-case scheme", "HCLOUD://1", "has none of the prefixes"],
    ["a Cloud ID that is a name", "hcloud://my-cloud", '"my-cloud" after "hcloud://", which is not a server ID'],
    ["a missing Cloud ID", "hcloud://", 'has no server ID after "hcloud://"'],
    ["a missing Robot number", "hrobot://", 'has no server ID after "hrobot://"'],
    ["a Robot number that is a name", "hrobot://my-robot", "which is not a server ID"],
    ["a missing legacy Robot number", "hcloud://bm-", 'has no server ID after "hcloud://bm-"'],
    ["a legacy Robot number that is a name", "hcloud://bm-my-robot", "which is not a server ID"],
    ["a signed ID", "hcloud://+12", "which is not a server ID"],
    ["a negative ID", "hrobot://-12", "which is not a server ID"],
    ["a repeated prefix", "hrobot://12hrobot://3", "which is not a server ID"],
    ["a trailing path", "hcloud://12/", "which is not a server ID"],
    ["whitespace", "hcloud:// 12", "which is not a server ID"],
    ["server ID 0", "hcloud://0", "outside 1-9007199254740991"],
    ["an ID past what a number holds exactly", "hcloud://9007199254740993", "outside 1-"],
  ])("refuses %s (%s), saying why", (_, id, why) => {
    expect(() => parseProviderID(id)).toThrow(why);
    expect(tryParseProviderID(id)).toBeUndefined();
  });

  test("formats Cloud and Robot IDs so that they read back, and the legacy form as the canonical one", () => {
    expect(formatCloudProviderID(1234)).toBe("hcloud://1234");
    expect(formatRobotProviderID(4321)).toBe("hrobot://4321");
    expect(parseProviderID(formatCloudProviderID(2251799813685247))).toEqual({ kind: "cloud", id: 2251799813685247 });
    const legacy = parseProviderID("hcloud://bm-77");
    expect(legacy.kind === "robot" && formatRobotProviderID(legacy.number)).toBe("hrobot://77");
  });

  test.each([0, -1, 1.5, Number.NaN])("refuses to format server ID %p", (id) => {
    expect(() => formatCloudProviderID(id)).toThrow("cannot form a provider ID");
    expect(() => formatRobotProviderID(id)).toThrow("cannot form a provider ID");
  });
});
