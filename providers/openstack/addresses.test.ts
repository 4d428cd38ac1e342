import { describe, expect, test } from "bun:test";
import type { NodeAddress } from "../../kube/objects.ts";
import { type NetworkingOptions, nodeAddresses, sortAddresses } from "./addresses.ts";
import type { Port, Server } from "./api/compute.ts";

const options = (o: Partial<NetworkingOptions> = {}): NetworkingOptions => ({
  ipv6SupportDisabled: false,
  publicNetworkNames: [],
  internalNetworkNames: [],
  addressSortOrder: [],
  ...o,
});

const server = (o: Partial<Server> = {}): Server => ({
  id: "s-1",
  name: "node-1",
  status: "ACTIVE",
  addresses: {},
  accessIPv4: "",
  accessIPv6: "",
  hostname: "",
  flavorName: "m1.small",
  flavorID: undefined,
  availabilityZone: "nova",
  ...o,
});

const port = (fixedIPs: string[], status = "ACTIVE"): Port => ({
  id: "p",
  status,
  deviceID: "s-1",
  networkID: "n",
  fixedIPs,
  subPortIDs: [],
});
const internal = (address: string): NodeAddress => ({ type: "InternalIP", address });
const external = (address: string): NodeAddress => ({ type: "ExternalIP", address });

describe("a server's node addresses, as OCCM chooses them", () => {
  test.each<[string, Server, Port[], NetworkingOptions, NodeAddress[]]>([
    [
      "ports' fixed IPs first, then access IPs, the hostname, then Nova's addresses by network name",
      server({
        accessIPv4: "50.56.176.35",
        accessIPv6: "2001:4800:790e:510:be76:4eff:fe04:84a8",
        hostname: "node-1.example",
        addresses: {
          public: [{ addr: "203.0.113.5", type: "fixed" }],
          private: [
            { addr: "10.0.0.5", type: "fixed" },
            { addr: "198.51.100.7", type: "floating" },
          ],
        },
      }),
      [port(["10.0.0.5"])],
      options(),
      [
        internal("10.0.0.5"),
        external("50.56.176.35"),
        external("2001:4800:790e:510:be76:4eff:fe04:84a8"),
        { type: "Hostname", address: "node-1.example" },
        external("198.51.100.7"),
        internal("203.0.113.5"),
      ],
    ],
    ["a port that is not ACTIVE gives nothing", server(), [port(["10.0.0.9"], "DOWN")], options(), []],
    [
      "a public network's address is ExternalIP and no longer InternalIP",
      server({ addresses: { ext: [{ addr: "10.1.0.5", type: "fixed" }] } }),
      [port(["10.1.0.5"])],
      options({ publicNetworkNames: ["ext"] }),
      [external("10.1.0.5")],
    ],
    [
      "with internal networks named, other networks' addresses are dropped, the ports' too",
      server({
        addresses: {
          storage: [{ addr: "172.16.0.5", type: "fixed" }],
          private: [{ addr: "10.0.0.5", type: "fixed" }],
        },
      }),
      [port(["172.16.0.5", "10.0.0.5"])],
      options({ internalNetworkNames: ["private"] }),
      [internal("10.0.0.5")],
    ],
    [
      "ipv6-support-disabled leaves every IPv6 address out",
      server({
        accessIPv6: "2001:db8::1",
        addresses: {
          private: [
            { addr: "10.0.0.5", type: "fixed" },
            { addr: "fd00::5", type: "fixed" },
          ],
        },
      }),
      [port(["10.0.0.5", "fd00::5"])],
      options({ ipv6SupportDisabled: true }),
      [internal("10.0.0.5")],
    ],
  ])("%s", (_, s, ports, o, want) => {
    expect(nodeAddresses(s, ports, o)).toEqual(want);
  });

  test("trunk sub-ports' addresses join their network's, as fixed ones, under the same selection", () => {
    const s = server({ addresses: { private: [{ addr: "10.0.0.5", type: "fixed" }] } });
    const subPorts = { "vlan-100": ["172.16.100.5"], private: ["10.0.0.77"], "vlan-v6": ["fd01::5"] };
    expect(nodeAddresses(s, [port(["10.0.0.5"])], options(), subPorts)).toEqual([
      internal("10.0.0.5"),
      internal("10.0.0.77"),
      internal("172.16.100.5"),
      internal("fd01::5"),
    ]);
    expect(
      nodeAddresses(
        s,
        [port(["10.0.0.5"])],
        options({ ipv6SupportDisabled: true, publicNetworkNames: ["vlan-100"] }),
        subPorts,
      ),
    ).toEqual([internal("10.0.0.5"), internal("10.0.0.77"), external("172.16.100.5")]);
  });
});

describe("address-sort-order", () => {
  test("addresses inside the CIDRs come first, the first CIDR's first, ascending inside one; the rest keep their order", () => {
    const addresses = [
      internal("192.168.0.9"),
      external("203.0.113.5"),
      internal("10.0.0.9"),
      internal("192.168.0.2"),
      internal("10.0.0.3"),
      { type: "Hostname", address: "node-1" } as NodeAddress,
    ];
    expect(sortAddresses(addresses, ["10.0.0.0/8", "192.168.0.0/16"])).toEqual([
      internal("10.0.0.3"),
      internal("10.0.0.9"),
      internal("192.168.0.2"),
      internal("192.168.0.9"),
      external("203.0.113.5"),
      { type: "Hostname", address: "node-1" },
    ]);
  });

  test("applies to a server's addresses when configured", () => {
    const s = server({
      addresses: { a: [{ addr: "10.0.0.5", type: "fixed" }], b: [{ addr: "192.168.1.1", type: "fixed" }] },
    });
    expect(nodeAddresses(s, [], options({ addressSortOrder: ["192.168.0.0/16"] }))).toEqual([
      internal("192.168.1.1"),
      internal("10.0.0.5"),
    ]);
  });
});
