import { describe, expect, test } from "bun:test";
import { readInventoryConfigMap } from "./inventory-configmap.ts";

describe("inventory ConfigMap entries", () => {
  test("a missing ConfigMap is null; an empty one has no machines", () => {
    expect(readInventoryConfigMap(undefined)).toBeNull();
    expect(readInventoryConfigMap({ metadata: { name: "x" } })).toEqual({ machines: [], invalid: new Map() });
  });

  test("each key is a machine; its value holds the fields", () => {
    const read = readInventoryConfigMap({
      data: {
        "node-1": "addresses:\n  InternalIP: [10.0.0.11, 'FD00::11']\nzone: rack-1\nlabels: { example.com/x: y }\n",
        "node-2": "providerID: metal://slot-2\n",
        "node-3": "",
      },
    });
    expect(read?.invalid).toEqual(new Map());
    expect(read?.machines).toEqual([
      {
        name: "node-1",
        providerID: "metal://node-1",
        addresses: [
          { type: "InternalIP", address: "10.0.0.11" },
          { type: "InternalIP", address: "fd00::11" },
        ],
        zone: "rack-1",
        region: undefined,
        instanceType: undefined,
        labels: { "example.com/x": "y" },
        probe: undefined,
      },
      expect.objectContaining({ name: "node-2", providerID: "metal://slot-2" }),
      expect.objectContaining({ name: "node-3", providerID: "metal://node-3", addresses: [] }),
    ]);
  });

  test("unreadable entries carry every problem and the fix; the others still count", () => {
    const read = readInventoryConfigMap({
      data: {
        good: "zone: a\n",
        Node_1: "zone: a\n",
        yaml: "zone: [\n",
        fields: "zone: 'a b'\ncolour: blue\naddresses: { InternalIP: nope }\n",
        twin: "providerID: metal://good\n",
        tagged: "zone: a\ninstanceType: !!binary YzEubWVkaXVt\n",
      },
    });
    expect(read?.machines.map((m) => m.name)).toEqual(["good"]);
    const invalid = Object.fromEntries(read?.invalid ?? []);
    expect(invalid.Node_1).toEqual(['the key "Node_1" is not a Node name; use the node\'s lower-case name as the key']);
    expect(invalid.yaml).toEqual([expect.stringMatching(/^not valid YAML: /)]);
    expect([...(invalid.fields ?? [])].sort()).toEqual([
      'addresses.InternalIP: "nope" is not an IP address (InternalIP takes IPv4 or IPv6 addresses)',
      "colour: is not a machine field; the fields are providerID, addresses, zone, region, instanceType, labels, probe",
      "zone: must be a valid label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit",
    ]);
    expect(invalid.twin).toEqual(['providerID "metal://good" is also the provider ID of "good"']);
    expect(invalid.tagged).toEqual([expect.stringMatching(/^instanceType: has the YAML tag !!binary \(line 2\)/)]);
  });
});
