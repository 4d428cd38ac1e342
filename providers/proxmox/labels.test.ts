import { describe, expect, test } from "bun:test";
import type { InstanceMetadata } from "../cloud.ts";
import { planRelabel } from "./labels.ts";
import { node } from "./testing.ts";

const moved: InstanceMetadata = {
  providerID: "proxmox://east/101",
  instanceType: "",
  nodeAddresses: [],
  zone: "pve-b",
  region: "east",
};
const before = {
  "topology.proxmox.sinextra.dev/zone": "pve-a",
  "topology.proxmox.sinextra.dev/region": "east",
  "topology.kubernetes.io/zone": "pve-a",
  "topology.kubernetes.io/region": "east",
};

describe("relabelling after a migration", () => {
  test.each([
    ["moves the provider's own zone label", false, before, { "topology.proxmox.sinextra.dev/zone": "pve-b" }],
    [
      "also moves the Kubernetes zone labels with force_update_labels",
      true,
      before,
      {
        "topology.proxmox.sinextra.dev/zone": "pve-b",
        "topology.kubernetes.io/zone": "pve-b",
        "failure-domain.beta.kubernetes.io/zone": "pve-b",
        "failure-domain.beta.kubernetes.io/region": "east",
      },
    ],
    [
      "changes nothing when the labels match",
      false,
      { ...before, "topology.proxmox.sinextra.dev/zone": "pve-b" },
      undefined,
    ],
  ])("%s", (_, force, labels, want) => {
    expect(planRelabel(node("n1", { labels }), moved, force)).toEqual(want as never);
  });

  test("leaves a node that is not initialised yet to the node controller", () => {
    expect(planRelabel(node("n1", { labels: before, tainted: true }), moved, true)).toBeUndefined();
  });
});
