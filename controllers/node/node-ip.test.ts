import { describe, expect, test } from "bun:test";
import { formatIP } from "../../net/ip.ts";
import { addr } from "./node-fixtures.ts";
import {
  addToNodeAddresses,
  getNodeAddressesFromNodeIP,
  NodeIPNotInCloudError,
  NodeIPParseError,
  nodeAddressesChangeDetected,
  parseProvidedNodeIP,
} from "./node-ip.ts";

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a throw");
}

describe("parseProvidedNodeIP", () => {
  test.each([
    ["10.0.0.1", ["10.0.0.1"]],
    ["fd00::1", ["fd00::1"]],
    ["10.0.0.1,fd00::1", ["10.0.0.1", "fd00::1"]],
    ["fd00::1,10.0.0.1", ["fd00::1", "10.0.0.1"]],
    ["0.0.0.0", ["0.0.0.0"]],
    ["::", ["::"]],
    ["010.0.0.1", ["10.0.0.1"]],
  ])("accepts %p", (value, ips) => {
    expect(parseProvidedNodeIP(value).map(formatIP)).toEqual(ips);
  });

  test.each([
    ["", 'failed to parse node IP "": could not parse ""'],
    ["bad", 'failed to parse node IP "bad": could not parse "bad"'],
    ["10.0.0.1, fd00::1", 'failed to parse node IP "10.0.0.1, fd00::1": could not parse " fd00::1"'],
    ["10.0.0.1,", 'failed to parse node IP "10.0.0.1,": could not parse ""'],
    ["10.0.0.1,fd00::1,bad", 'failed to parse node IP "10.0.0.1,fd00::1,bad": could not parse "bad"'],
    [
      "10.0.0.1,10.0.0.2",
      'failed to parse node IP "10.0.0.1,10.0.0.2": must contain either a single IP or a dual-stack pair of IPs',
    ],
    [
      "fd00::1,fd00::2",
      'failed to parse node IP "fd00::1,fd00::2": must contain either a single IP or a dual-stack pair of IPs',
    ],
    [
      "::ffff:10.0.0.1,10.0.0.2",
      'failed to parse node IP "::ffff:10.0.0.1,10.0.0.2": must contain either a single IP or a dual-stack pair of IPs',
    ],
    [
      "10.0.0.1,fd00::1,10.0.0.2",
      'failed to parse node IP "10.0.0.1,fd00::1,10.0.0.2": must contain either a single IP or a dual-stack pair of IPs',
    ],
    [
      "0.0.0.0,fd00::1",
      "failed to parse node IP \"0.0.0.0,fd00::1\": dual-stack node IP cannot include '0.0.0.0' or '::'",
    ],
    ["10.0.0.1,::", "failed to parse node IP \"10.0.0.1,::\": dual-stack node IP cannot include '0.0.0.0' or '::'"],
  ])("rejects %p with upstream's message", (value, message) => {
    const err = thrown(() => parseProvidedNodeIP(value));
    expect(err).toBeInstanceOf(NodeIPParseError);
    expect(err.message).toBe(message);
  });
});

describe("getNodeAddressesFromNodeIP", () => {
  const cloud = [
    addr("InternalIP", "10.0.0.1"),
    addr("InternalIP", "10.0.0.2"),
    addr("ExternalIP", "132.143.154.163"),
    addr("InternalIP", "fd00::2"),
    addr("Hostname", "node0.example.com"),
  ];

  test.each([
    {
      name: "puts the matching address first as the only one of its type, other types pass through",
      annotation: "10.0.0.2",
      cloud,
      want: [
        addr("InternalIP", "10.0.0.2"),
        addr("ExternalIP", "132.143.154.163"),
        addr("Hostname", "node0.example.com"),
      ],
    },
    {
      name: "keeps every cloud address equal to the IP, whatever its type",
      annotation: "10.0.0.1",
      cloud: [addr("ExternalIP", "1.1.1.1"), addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "10.0.0.1")],
      want: [addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "10.0.0.1")],
    },
    {
      name: "compares parsed IPs and keeps the cloud's spelling",
      annotation: "010.0.0.2",
      cloud: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "::ffff:10.0.0.2")],
      want: [addr("InternalIP", "::ffff:10.0.0.2")],
    },
    {
      name: "matches an IPv6 written differently",
      annotation: "FD00:0::2",
      cloud,
      want: [
        addr("InternalIP", "fd00::2"),
        addr("ExternalIP", "132.143.154.163"),
        addr("Hostname", "node0.example.com"),
      ],
    },
    {
      name: "dual stack: both matches first, in annotation order",
      annotation: "fd00::2,10.0.0.1",
      cloud,
      want: [
        addr("InternalIP", "fd00::2"),
        addr("InternalIP", "10.0.0.1"),
        addr("ExternalIP", "132.143.154.163"),
        addr("Hostname", "node0.example.com"),
      ],
    },
    {
      name: "a match among ExternalIPs leaves InternalIPs alone",
      annotation: "132.143.154.163",
      cloud,
      want: [
        addr("ExternalIP", "132.143.154.163"),
        addr("InternalIP", "10.0.0.1"),
        addr("InternalIP", "10.0.0.2"),
        addr("InternalIP", "fd00::2"),
        addr("Hostname", "node0.example.com"),
      ],
    },
  ])("$name", ({ annotation, cloud: cloudAddresses, want }) => {
    expect(getNodeAddressesFromNodeIP(annotation, cloudAddresses)).toEqual([...want]);
  });

  test.each([
    ["10.0.0.9", cloud, "failed to get node address from cloud provider that matches ip: 10.0.0.9"],
    ["010.0.0.9", cloud, "failed to get node address from cloud provider that matches ip: 10.0.0.9"],
    ["FD00:0::9", cloud, "failed to get node address from cloud provider that matches ip: fd00::9"],
    ["10.0.0.1,fd00::9", cloud, "failed to get node address from cloud provider that matches ip: fd00::9"],
    ["10.0.0.1", [], "failed to get node address from cloud provider that matches ip: 10.0.0.1"],
    [
      "10.0.0.1",
      [addr("Hostname", "10.0.0.1.example")],
      "failed to get node address from cloud provider that matches ip: 10.0.0.1",
    ],
  ])("fails for %p when the cloud has no such address", (annotation, cloudAddresses, message) => {
    const caught = thrown(() => getNodeAddressesFromNodeIP(annotation, cloudAddresses));
    expect(caught).toBeInstanceOf(NodeIPNotInCloudError);
    expect(caught.message).toBe(message);
    expect((caught as NodeIPNotInCloudError).cloudAddresses).toEqual(cloudAddresses);
  });

  test("fails with the parse error for an invalid annotation", () => {
    expect(() => getNodeAddressesFromNodeIP("10.0.0.1,10.0.0.2", cloud)).toThrow(
      'failed to parse node IP "10.0.0.1,10.0.0.2": must contain either a single IP or a dual-stack pair of IPs',
    );
  });
});

describe("addToNodeAddresses", () => {
  const base = [addr("InternalIP", "10.0.0.1"), addr("Hostname", "h")];
  test.each([
    {
      name: "appends a new address",
      add: [addr("ExternalIP", "1.1.1.1")],
      want: [...base, addr("ExternalIP", "1.1.1.1")],
    },
    { name: "skips an existing (type, address) pair", add: [addr("InternalIP", "10.0.0.1")], want: base },
    {
      name: "appends the same address under another type",
      add: [addr("ExternalIP", "10.0.0.1")],
      want: [...base, addr("ExternalIP", "10.0.0.1")],
    },
    {
      name: "dedupes within the additions",
      add: [addr("ExternalIP", "1.1.1.1"), addr("ExternalIP", "1.1.1.1")],
      want: [...base, addr("ExternalIP", "1.1.1.1")],
    },
    { name: "adds nothing for no additions", add: [], want: base },
  ])("$name", ({ add, want }) => {
    const before = structuredClone(base);
    expect(addToNodeAddresses(base, ...add)).toEqual([...want]);
    expect(base).toEqual(before);
  });
});

describe("nodeAddressesChangeDetected", () => {
  const a = addr("InternalIP", "10.0.0.1");
  const b = addr("ExternalIP", "1.1.1.1");
  test.each([
    { name: "no change for two empty lists", old: [], next: [], want: false },
    { name: "no change for the same list", old: [a, b], next: [a, b], want: false },
    { name: "no change when only the order differs", old: [a, b], next: [b, a], want: false },
    { name: "a change when the lengths differ", old: [a], next: [a, b], want: true },
    { name: "a change from no addresses", old: [], next: [a], want: true },
    { name: "a change when an address differs", old: [a, b], next: [a, addr("ExternalIP", "2.2.2.2")], want: true },
    { name: "a change when a type differs", old: [a], next: [addr("ExternalIP", "10.0.0.1")], want: true },
    {
      name: "no change seen when a duplicate type hides one (upstream's lossy map)",
      old: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2")],
      next: [addr("InternalIP", "10.0.0.2"), addr("InternalIP", "10.0.0.2")],
      want: false,
    },
    {
      name: "a change reported for an identical list with two addresses of one type (upstream's lossy map)",
      old: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2")],
      next: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2")],
      want: true,
    },
    {
      name: "no change seen for an empty address of a type the old list lacks",
      old: [a],
      next: [addr("Hostname", "")],
      want: false,
    },
  ])("$name", ({ old, next, want }) => {
    expect(nodeAddressesChangeDetected(old, next)).toBe(want);
  });
});
