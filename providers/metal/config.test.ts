import { describe, expect, test } from "bun:test";
import { configProblems } from "../../config/testing.ts";
import { formatRange } from "./address-ranges.ts";
import { configuredPools, parseMetalConfig } from "./config.ts";
import { poolFor, shareAllowed } from "./pools.ts";

const source = "--cloud-config=/etc/metal.yaml";

function problems(text: string): Record<string, string> {
  return configProblems(() => parseMetalConfig(text, source));
}

describe("parseMetalConfig", () => {
  test.each([
    ["no cloud-config", undefined],
    ["an empty file", ""],
  ])("%s is valid: an empty inventory, no probe, no load balancers", (_, text) => {
    expect(parseMetalConfig(text, source) as unknown).toEqual({
      inventory: { machines: [], requireInventoryEntry: false, deleteNodesMissingFromInventory: false },
    });
  });

  test("reads every field and applies defaults", () => {
    const text = `
inventory:
  machines:
    - name: node-1
      addresses: { InternalIP: [10.0.0.11, "fd00::11"], Hostname: node-1.lab }
      zone: rack-1
      region: dc-1
      instanceType: r640
      labels: { example.com/row: "3", empty: "" }
      probe: { port: 2222 }
  configMap: {}
shutdownProbe: {}
loadBalancer:
  global: { addresses: [192.0.2.0/28], allowShare: true, interface: eth1 }
  namespaces: { team-a: { addresses: [198.51.100.10-198.51.100.20] }, team-b: { allowShare: false } }
  kubeVipConfigMap: { name: pools }
`;
    const config = parseMetalConfig(text, source);
    expect(config.inventory as unknown).toEqual({
      machines: [
        {
          name: "node-1",
          addresses: { InternalIP: ["10.0.0.11", "fd00::11"], Hostname: ["node-1.lab"] },
          zone: "rack-1",
          region: "dc-1",
          instanceType: "r640",
          labels: { "example.com/row": "3", empty: "" },
          probe: { port: 2222 },
        },
      ],
      configMap: { namespace: "kube-system", name: "metal-inventory" },
      requireInventoryEntry: false,
      deleteNodesMissingFromInventory: false,
    });
    expect(config.shutdownProbe as unknown).toEqual({ port: 22, timeoutMs: 2000 });
    expect(config.loadBalancer as unknown).toMatchObject({
      searchOrder: "ascending",
      avoidBuggyIPs: false,
      kubeVipAnnotation: true,
      kubeVipConfigMap: { namespace: "kube-system", name: "pools" },
    });
    const pools = configuredPools(config.loadBalancer!);
    expect(pools.pools.get("global")?.ranges.map(formatRange)).toEqual(["192.0.2.1-192.0.2.14"]);
    expect(pools.pools.get("global")?.interface).toBe("eth1");
    expect(poolFor(pools, "team-b")).toMatchObject({ kind: "pool", pool: { scope: "global" } });
    expect(shareAllowed(pools, "team-c")).toBe(true);
    expect(shareAllowed(pools, "team-b")).toBe(false);
  });

  test("lists every problem at once, each with its field and the fix", () => {
    const text = `
inventory:
  machines:
    - name: Node_1
      addresses: { InternalIP: 10.0.0.300, Public: 1.2.3.4 }
      zone: "rack 1"
      labels: { kubernetes.io/role: x, "bad key!": y }
      probe: { port: 70000 }
      colour: blue
    - addresses: { InternalIP: 10.0.0.12 }
  requireInventoryEntry: "yes"
shutdownProbe: { timeoutMs: 0 }
loadBalancer:
  global: { addresses: [192.0.2.1/24, 10.0.0.9-10.0.0.1, 0.0.0.0/32] }
  namespaces: { team-a: { addresses: [] } }
  searchOrder: up
extra: 1
`;
    expect(problems(text)).toEqual({
      "inventory.machines[0].name": "must be a lower-case DNS name such as node-1 or node-1.lab (the Node's name)",
      "inventory.machines[0].addresses.InternalIP":
        '"10.0.0.300" is not an IP address (InternalIP takes IPv4 or IPv6 addresses)',
      "inventory.machines[0].addresses.Public":
        "is not an address type; use InternalIP, ExternalIP, Hostname, InternalDNS, ExternalDNS",
      "inventory.machines[0].zone":
        "must be a valid label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
      "inventory.machines[0].labels":
        "label key \"bad key!\" is invalid; use letters, digits, '-', '_', '.' (at most 63)",
      "inventory.machines[0].probe.port": "Invalid value: Expected <=65535 but received 70000",
      "inventory.machines[0].colour":
        "is not a machine field; the fields are name, providerID, addresses, zone, region, instanceType, labels, probe",
      "inventory.machines[1].name": "is required: the machine's Node name",
      "inventory.requireInventoryEntry": "must be true or false (a node without an entry stays uninitialised)",
      "shutdownProbe.timeoutMs": "must be at least 1",
      "loadBalancer.global.addresses[0]": '"192.0.2.1/24" has host bits set; did you mean 192.0.2.0/24?',
      "loadBalancer.global.addresses[1]": '"10.0.0.9-10.0.0.1" ends before it starts',
      "loadBalancer.global.addresses[2]": "0.0.0.0 cannot be allocated",
      "loadBalancer.namespaces.team-a.addresses": "must not be empty",
      "loadBalancer.searchOrder": "must be ascending or descending",
      extra: "is not a known key; the keys are inventory, shutdownProbe, loadBalancer",
    });
  });

  test("load balancer classes: served names, class-less or not, and a section that would serve nothing", () => {
    const lb = (extra: string) => `loadBalancer:\n  global: { addresses: [192.0.2.0/28] }\n${extra}`;
    expect(
      parseMetalConfig(lb("  classes: [metal.example.com/pool]\n  classless: false\n"), source).loadBalancer,
    ).toMatchObject({ classes: ["metal.example.com/pool"], classless: false });
    expect(problems(lb("  classless: false\n"))).toEqual({
      "loadBalancer.classless":
        "is false, and classes names none: no Service would be served; name a class or leave classless out",
    });
    expect(problems(lb("  classes: [Bad/Class, a, a]\n"))).toEqual({
      "loadBalancer.classes[0]": expect.stringContaining("must be a valid spec.loadBalancerClass"),
      "loadBalancer.classes": "must not name a class twice",
    });
  });

  test.each([
    [
      "0.0.0.0/0",
      '"0.0.0.0/0" is the whole IPv4 address space; name the addresses load balancers may take, such as 192.0.2.0/28',
    ],
    [
      "::/0",
      '"::/0" is the whole IPv6 address space; name the addresses load balancers may take, such as 2001:db8::/120',
    ],
  ])("a pool of the whole address space (%s) is refused, naming the field", (entry, message) => {
    const text = `loadBalancer:\n  namespaces: { team-a: { addresses: [192.0.2.0/28, "${entry}"] } }\n`;
    expect(problems(text)).toEqual({ "loadBalancer.namespaces.team-a.addresses[1]": message });
  });

  test("reserved label keys are refused with the reason", () => {
    const text = "inventory:\n  machines:\n    - name: n1\n      labels: { node.kubernetes.io/x: y }\n";
    expect(problems(text)["inventory.machines[0].labels"]).toBe(
      'label key "node.kubernetes.io/x" is under kubernetes.io/ or k8s.io/, which the node controller drops; use your own prefix',
    );
  });

  test("duplicate machine names and provider IDs are reported with the other entry, alongside other problems", () => {
    const text = `
inventory:
  machines:
    - { name: a }
    - { name: b, providerID: metal://a }
    - { name: a, zone: "x y" }
`;
    expect(problems(text)).toEqual({
      "inventory.machines[2].zone": expect.stringContaining("must be a valid label value"),
      "inventory.machines[2].name": '"a" is also the name of inventory.machines[0]; each machine needs its own',
      "inventory.machines[1].providerID":
        '"metal://a" is also the providerID of inventory.machines[0]; each machine needs its own',
    });
  });

  test("broken YAML is one problem", () => {
    expect(() => parseMetalConfig("inventory: [", source)).toThrow(/not valid YAML or JSON/);
  });
});
