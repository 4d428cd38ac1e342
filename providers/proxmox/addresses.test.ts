import { describe, expect, test } from "bun:test";
import { nodeAddresses } from "./addresses.ts";
import { parseProxmoxConfig } from "./config.ts";

const networkOf = (yaml: string) =>
  parseProxmoxConfig(
    `features: { network: ${yaml} }\nclusters: [{ url: "https://p/api2/json", token_id: "a@pve!t", token_secret: s, region: r }]`,
    "t",
  ).features.network;

const agent = [
  { name: "lo", addresses: ["127.0.0.1", "::1"] },
  { name: "eth0", addresses: ["192.168.10.21", "2001:db8:10::21", "fe80::1", "fd00::5"] },
  { name: "eth1", addresses: ["10.0.0.21", "192.168.5.9"] },
  { name: "cilium_host", addresses: ["10.244.0.1"] },
  { name: "dummy0", addresses: ["169.254.20.10"] },
];

const show = (list: { type: string; address: string }[]) => list.map((a) => `${a.type} ${a.address}`);

describe("proxmox node addresses", () => {
  test.each([
    [
      "the kubelet's --node-ip alone without the agent",
      "{}",
      "10.0.0.21",
      undefined,
      ["Hostname n1", "InternalIP 10.0.0.21"],
    ],
    [
      "the agent's addresses, skipping lo, cilium, dummy, link-local and unique-local IPv6",
      "{ mode: qemu }",
      undefined,
      agent,
      [
        "Hostname n1",
        "InternalIP 192.168.10.21",
        "InternalIP 2001:db8:10::21",
        "InternalIP 10.0.0.21",
        "InternalIP 192.168.5.9",
      ],
    ],
    [
      "no IPv6 when it is disabled, and the --node-ip once",
      "{ mode: qemu, ipv6_support_disabled: true }",
      "10.0.0.21",
      agent,
      ["Hostname n1", "InternalIP 10.0.0.21", "InternalIP 192.168.10.21", "InternalIP 192.168.5.9"],
    ],
    [
      "ExternalIP inside external_ip_cidrs except its ! entries",
      '{ mode: qemu, external_ip_cidrs: "192.168.0.0/16,!192.168.5.0/24,2001:db8::/32" }',
      undefined,
      agent,
      [
        "Hostname n1",
        "ExternalIP 192.168.10.21",
        "ExternalIP 2001:db8:10::21",
        "InternalIP 10.0.0.21",
        "InternalIP 192.168.5.9",
      ],
    ],
    [
      "ip_sort_order first, by address within an entry, ! entries dropped, the rest after in their order",
      '{ mode: qemu, ip_sort_order: "10.0.0.0/8,192.168.0.0/16,!2001:db8::/32" }',
      undefined,
      agent,
      ["Hostname n1", "InternalIP 10.0.0.21", "InternalIP 192.168.5.9", "InternalIP 192.168.10.21"],
    ],
  ])("%s", (_, network, nodeIP, interfaces, want) => {
    expect(show(nodeAddresses("n1", nodeIP, interfaces, networkOf(network)))).toEqual(want);
  });
});
