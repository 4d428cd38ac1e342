import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import { Labels, Taints } from "../../kube/well-known.ts";
import type { InstanceMetadata } from "../../providers/cloud.ts";
import { ProvidedNodeIPError } from "./errors.ts";
import { addr, labels, node, providedNodeIP, providerID, taint, uninitialized } from "./node-fixtures.ts";
import { NodeIPNotInCloudError, NodeIPParseError } from "./node-ip.ts";
import { applyModifiers, awaitingInitialization, type InitializationPlan, planInitialization } from "./plan.ts";

function metadata(over: Partial<InstanceMetadata> = {}): InstanceMetadata {
  return { providerID: "", instanceType: "", nodeAddresses: [], zone: "", region: "", ...over };
}

function initialized(n: Node, md: InstanceMetadata | null): { node: Node; warnings: readonly string[] } {
  const plan = planInitialization(n, md);
  if (plan.kind !== "initialize") throw new Error(`expected initialize, got ${plan.kind}`);
  return { node: applyModifiers(n, plan.modifiers).node, warnings: plan.warnings };
}

function planError(plan: InitializationPlan): Error {
  if (plan.kind !== "error") throw new Error(`expected error, got ${plan.kind}`);
  return plan.error;
}

describe("awaitingInitialization", () => {
  test.each([
    ["the kubelet's taint", [taint(Taints.uninitialized, "NoSchedule", "true")], true],
    ["the key with another effect and no value", [taint(Taints.uninitialized, "NoExecute")], true],
    ["no taints", [], false],
    ["other taints only", [taint("other"), taint(Taints.shutdown)], false],
  ])("matches the uninitialized taint by key only: %s", (_, tweaks, want) => {
    expect(awaitingInitialization(node("n1", ...tweaks)) !== undefined).toBe(want);
  });
});

describe("planInitialization", () => {
  test("waits on null metadata without touching the node", () => {
    expect(planInitialization(node("n1", uninitialized), null).kind).toBe("wait");
  });

  test("sets the provider ID when the node has none", () => {
    const { node: out } = initialized(node("n1", uninitialized), metadata({ providerID: "fake://i-1" }));
    expect(out.spec?.providerID).toBe("fake://i-1");
  });

  test("keeps the node's provider ID", () => {
    const { node: out } = initialized(node("n1", uninitialized, providerID("aws://a")), metadata({ providerID: "b" }));
    expect(out.spec?.providerID).toBe("aws://a");
  });

  test("never overwrites a provider ID that appeared on the fresh copy", () => {
    const plan = planInitialization(node("n1", uninitialized), metadata({ providerID: "fake://i-1" }));
    if (plan.kind !== "initialize") throw new Error(plan.kind);
    const fresh = node("n1", uninitialized, providerID("kubelet://x"));
    expect(applyModifiers(fresh, plan.modifiers).node.spec?.providerID).toBe("kubelet://x");
  });

  test("sets the instance-type, zone and region labels, stable and deprecated", () => {
    const md = metadata({ providerID: "p", instanceType: "big", zone: "z1", region: "r1" });
    const { node: out } = initialized(node("n1", uninitialized), md);
    expect(out.metadata?.labels).toEqual({
      [Labels.instanceType]: "big",
      [Labels.instanceTypeDeprecated]: "big",
      [Labels.zone]: "z1",
      [Labels.zoneDeprecated]: "z1",
      [Labels.region]: "r1",
      [Labels.regionDeprecated]: "r1",
    });
  });

  test("sets no label for an empty value", () => {
    const { node: out } = initialized(node("n1", uninitialized), metadata({ providerID: "p", zone: "z1" }));
    expect(out.metadata?.labels).toEqual({ [Labels.zone]: "z1", [Labels.zoneDeprecated]: "z1" });
  });

  test.each([
    { key: "kubernetes.io/x", kept: false },
    { key: "k8s.io/x", kept: false },
    { key: "topology.kubernetes.io/x", kept: false },
    { key: "topology.k8s.io/x", kept: false },
    { key: "node.kubernetes.io/exclude", kept: false },
    { key: "app.k8snio/bar", kept: true },
    { key: "k8snio/bar", kept: true },
    { key: "topology.k8s.cp/zone-id", kept: true },
    { key: "example.com/kubernetes.io", kept: true },
    { key: "plain", kept: true },
  ])("additional label $key kept: $kept", ({ key, kept }) => {
    const { node: out, warnings } = initialized(
      node("n1", uninitialized),
      metadata({ providerID: "p", additionalLabels: { [key]: "v" } }),
    );
    expect(out.metadata?.labels?.[key]).toBe(kept ? "v" : undefined);
    expect(warnings).toHaveLength(kept ? 0 : 1);
  });

  test("keeps the node's own label when the cloud offers a different value", () => {
    const n = node("n1", uninitialized, labels({ "app.example/tier": "mine", "app.example/same": "s" }));
    const md = metadata({
      providerID: "p",
      additionalLabels: { "app.example/tier": "cloud", "app.example/same": "s", "app.example/new": "n" },
    });
    const { node: out, warnings } = initialized(n, md);
    expect(out.metadata?.labels).toEqual({
      "app.example/tier": "mine",
      "app.example/same": "s",
      "app.example/new": "n",
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("app.example/tier");
  });

  test("removes every uninitialized taint, matched by key only, and keeps the others", () => {
    const n = node(
      "n1",
      taint("a"),
      taint(Taints.uninitialized, "NoSchedule", "true"),
      taint(Taints.uninitialized, "NoExecute"),
      taint(Taints.shutdown),
    );
    const { node: out } = initialized(n, metadata({ providerID: "p" }));
    expect(out.spec?.taints).toEqual([
      { key: "a", effect: "NoSchedule" },
      { key: Taints.shutdown, effect: "NoSchedule" },
    ]);
  });

  test("leaves an empty taint list when the uninitialized taint was the only one", () => {
    expect(initialized(node("n1", uninitialized), metadata({ providerID: "p" })).node.spec?.taints).toEqual([]);
  });

  test("orders the changes: provider ID first, taint removal last", () => {
    const plan = planInitialization(node("n1", uninitialized), metadata({ providerID: "p", zone: "z" }));
    if (plan.kind !== "initialize") throw new Error(plan.kind);
    expect(plan.modifiers).toHaveLength(3);
    const copy = node("n1", uninitialized);
    plan.modifiers[0]!(copy);
    expect(copy.spec?.providerID).toBe("p");
    expect(copy.metadata?.labels).toBeUndefined();
    plan.modifiers[2]!(copy);
    expect(copy.spec?.taints).toEqual([]);
  });

  const cloudAddresses = [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "fd00::1"), addr("ExternalIP", "1.2.3.4")];
  test.each([
    ["a single IP the cloud has", "10.0.0.1"],
    ["a dual-stack pair the cloud has", "10.0.0.1,fd00::1"],
    ["an ExternalIP the cloud has", "1.2.3.4"],
  ])("accepts a provided node IP: %s", (_, value) => {
    const plan = planInitialization(
      node("n1", uninitialized, providedNodeIP(value)),
      metadata({ providerID: "p", nodeAddresses: cloudAddresses }),
    );
    expect(plan.kind).toBe("initialize");
  });

  test.each([
    {
      name: "not among the cloud's addresses",
      value: "10.0.0.9",
      cloud: cloudAddresses,
      cause: NodeIPNotInCloudError,
      message:
        'failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to get node address from cloud provider that matches ip: 10.0.0.9',
    },
    {
      name: "with a cloud that returned no addresses",
      value: "10.0.0.1",
      cloud: [],
      cause: NodeIPNotInCloudError,
      message:
        'failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to get node address from cloud provider that matches ip: 10.0.0.1',
    },
    {
      name: "invalid",
      value: "not-an-ip",
      cloud: cloudAddresses,
      cause: NodeIPParseError,
      message:
        'failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to parse node IP "not-an-ip": could not parse "not-an-ip"',
    },
    {
      name: "two of one family",
      value: "10.0.0.1,1.2.3.4",
      cloud: cloudAddresses,
      cause: NodeIPParseError,
      message:
        'failed to get node modifiers from cloud provider: provided node ip for node "n1" is not valid: failed to parse node IP "10.0.0.1,1.2.3.4": must contain either a single IP or a dual-stack pair of IPs',
    },
  ])("refuses a provided node IP $name, changing nothing", ({ value, cloud, cause, message }) => {
    const err = planError(
      planInitialization(
        node("n1", uninitialized, providedNodeIP(value)),
        metadata({ providerID: "p", nodeAddresses: cloud }),
      ),
    );
    expect(err).toBeInstanceOf(ProvidedNodeIPError);
    expect(err.cause).toBeInstanceOf(cause);
    expect(err.message).toBe(message);
  });
});

describe("applyModifiers", () => {
  test("changes a copy, never the node given, and says whether anything changed", () => {
    const n = node("n1", uninitialized);
    const before = structuredClone(n);
    const plan = planInitialization(n, metadata({ providerID: "p" }));
    if (plan.kind !== "initialize") throw new Error(plan.kind);
    const out = applyModifiers(n, plan.modifiers);
    expect(n).toEqual(before);
    expect(out.changed).toBe(true);
    expect(applyModifiers(out.node, plan.modifiers).changed).toBe(false);
  });
});
