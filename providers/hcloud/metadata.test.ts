import { describe, expect, test } from "bun:test";
import type { RobotServer } from "./api/robot.ts";
import type { CloudServer } from "./api/servers.ts";
import { cloudMetadata, ipv6Host, robotInstanceType, robotMetadata, zoneOfLocation } from "./metadata.ts";
import { addresses, node } from "./testing.ts";

const cloud: CloudServer = {
  id: 42,
  name: "node-1",
  status: "running",
  type: "cpx21",
  location: "fsn1",
  networkZone: "eu-central",
  ipv4: "203.0.113.5",
  ipv6Net: "2001:db8:1::/64",
  privateNets: [
    { network: 7, ip: "10.0.1.5" },
    { network: 8, ip: "10.1.0.5" },
  ],
  labels: {},
};

const robot: RobotServer = {
  number: 321,
  name: "bm-1",
  ip: "198.51.100.9",
  ipv6Net: "2a01:4f8:111:4221::",
  product: "Server Auction",
  dc: "HEL1-DC2",
  cancelled: false,
};

describe("Cloud server metadata as hccm writes it", () => {
  test.each([
    ["ipv4, no network", "ipv4", undefined, [["ExternalIP", "203.0.113.5"]]],
    ["ipv6, no network", "ipv6", undefined, [["ExternalIP", "2001:db8:1::1"]]],
    [
      "dualstack with a network",
      "dualstack",
      7,
      [
        ["ExternalIP", "203.0.113.5"],
        ["ExternalIP", "2001:db8:1::1"],
        ["InternalIP", "10.0.1.5"],
      ],
    ],
    [
      "ipv4 in the other network",
      "ipv4",
      8,
      [
        ["ExternalIP", "203.0.113.5"],
        ["InternalIP", "10.1.0.5"],
      ],
    ],
    ["a network the server is not in", "ipv4", 9, [["ExternalIP", "203.0.113.5"]]],
  ] as const)("addresses: %s", (_, addressFamily, networkId, want) => {
    const m = cloudMetadata(cloud, { addressFamily, zoneLabel: true, networkId });
    expect(m.nodeAddresses).toEqual([
      { type: "Hostname", address: "node-1" },
      ...want.map(([type, address]) => ({ type, address })),
    ]);
  });

  test("a server without public addresses has only its hostname and private IP", () => {
    const { ipv4: _, ipv6Net: __, ...bare } = cloud;
    const m = cloudMetadata(bare, { addressFamily: "dualstack", zoneLabel: true, networkId: 7 });
    expect(m.nodeAddresses).toEqual([
      { type: "Hostname", address: "node-1" },
      { type: "InternalIP", address: "10.0.1.5" },
    ]);
  });

  test("provider ID, type, region, zone and the provided-by label", () => {
    expect(cloudMetadata(cloud, { addressFamily: "ipv4", zoneLabel: true })).toMatchObject({
      providerID: "hcloud://42",
      instanceType: "cpx21",
      region: "fsn1",
      zone: "fsn1-dc14",
      additionalLabels: { "instance.hetzner.cloud/provided-by": "cloud" },
    });
    expect(cloudMetadata(cloud, { addressFamily: "ipv4", zoneLabel: false }).zone).toBe("");
    expect(cloudMetadata({ ...cloud, location: "" }, { addressFamily: "ipv4", zoneLabel: true }).zone).toBe("");
  });

  test.each([
    ["nbg1", "nbg1-dc3"],
    ["hel1", "hel1-dc2"],
    ["fsn1", "fsn1-dc14"],
    ["ash", "ash-dc1"],
    ["hil", "hil-dc1"],
    ["sin", "sin-dc1"],
    ["nyc9", "nyc9"],
  ])("the zone of location %s is %s", (location, zone) => {
    expect(zoneOfLocation(location)).toBe(zone);
  });
});

describe("Robot server metadata as hccm writes it", () => {
  test("provider ID, type, zone from the data center, region before its dash", () => {
    const { metadata, warnings } = robotMetadata(robot, node("bm-1"), {
      addressFamily: "ipv4",
      forwardInternalIPs: false,
    });
    expect(metadata).toEqual({
      providerID: "hrobot://321",
      instanceType: "Server-Auction",
      nodeAddresses: [
        { type: "Hostname", address: "bm-1" },
        { type: "ExternalIP", address: "198.51.100.9" },
      ],
      zone: "hel1-dc2",
      region: "hel1",
      additionalLabels: { "instance.hetzner.cloud/provided-by": "robot" },
    });
    expect(warnings).toEqual([]);
  });

  test.each([
    ["AX41-NVMe", "AX41-NVMe"],
    ["Server Auction", "Server-Auction"],
    ["EX44 (2x NVMe)", "EX44-2x-NVMe"],
    ["SX 134 / 10G", "SX-134--10G"],
  ])("instance type of product %j is %j", (product, want) => {
    expect(robotInstanceType(product)).toBe(want);
  });

  test.each([
    ["dualstack: IPv6 first, then IPv4", "dualstack", ["2a01:4f8:111:4221::1", "198.51.100.9"]],
    ["ipv6 only", "ipv6", ["2a01:4f8:111:4221::1"]],
  ] as const)("addresses, %s", (_, addressFamily, external) => {
    const { metadata } = robotMetadata(robot, node("bm-1"), { addressFamily, forwardInternalIPs: false });
    expect(metadata.nodeAddresses.slice(1).map((a) => a.address)).toEqual([...external]);
  });

  test("forwards the Node's InternalIPs of the family, and says why it drops the others", () => {
    const n = node(
      "bm-1",
      addresses(
        { type: "InternalIP", address: "10.0.2.9" },
        { type: "InternalIP", address: "fd00::9" },
        { type: "InternalIP", address: "198.51.100.9" },
        { type: "ExternalIP", address: "192.0.2.1" },
      ),
    );
    const { metadata, warnings } = robotMetadata(robot, n, { addressFamily: "ipv4", forwardInternalIPs: true });
    expect(metadata.nodeAddresses).toEqual([
      { type: "Hostname", address: "bm-1" },
      { type: "ExternalIP", address: "198.51.100.9" },
      { type: "InternalIP", address: "10.0.2.9" },
    ]);
    expect(warnings).toEqual([
      "InternalIP fd00::9 is IPv6 but HCLOUD_INSTANCES_ADDRESS_FAMILY is IPv4 only; not forwarded",
      "InternalIP 198.51.100.9 is already an ExternalIP; not forwarded",
    ]);
  });
});

describe("the ::1 host of an IPv6 network", () => {
  test.each([
    ["2001:db8:1::/64", "2001:db8:1::1"],
    ["2a01:4f8:111:4221::", "2a01:4f8:111:4221::1"],
    ["2a01:4f8:c17:b8f::/64", "2a01:4f8:c17:b8f::1"],
    ["2001:db8:0:0:0:0:0:0/64", "2001:db8::1"],
  ])("%s → %s", (net, host) => {
    expect(ipv6Host(net)).toBe(host);
  });
});
