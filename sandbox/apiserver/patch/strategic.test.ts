import { describe, expect, test } from "bun:test";
import type { Json } from "../testing.ts";
import { PatchError } from "./json-patch.ts";
import { mergeKeysFor } from "./merge-keys.ts";
import { applyStrategicMergePatch } from "./strategic.ts";

const cond = (type: string, status = "True", extra: Record<string, unknown> = {}) => ({ type, status, ...extra });
const taint = (key: string, effect: string, value?: string) => ({ key, effect, ...(value ? { value } : {}) });

const node = (): Json => ({
  metadata: { name: "n1", finalizers: ["a", "b"], labels: { x: "1" } },
  spec: {
    taints: [taint("t1", "NoSchedule"), taint("t1", "NoExecute"), taint("t2", "NoSchedule")],
    podCIDRs: ["10.0.0.0/24"],
  },
  status: {
    conditions: [cond("Ready"), cond("MemoryPressure", "False"), cond("DiskPressure", "False")],
    addresses: [
      { type: "InternalIP", address: "10.0.0.1" },
      { type: "Hostname", address: "n1" },
    ],
  },
});

const patchNode = (patch: unknown): Json => applyStrategicMergePatch(node(), patch, mergeKeysFor("Node")) as Json;

describe("strategic merge patch on nodes", () => {
  test("merges status.conditions by type, keeping the others", () => {
    const out = patchNode({ status: { conditions: [cond("Ready", "False", { reason: "KubeletDown" })] } });
    expect(out.status.conditions).toEqual([
      cond("Ready", "False", { reason: "KubeletDown" }),
      cond("MemoryPressure", "False"),
      cond("DiskPressure", "False"),
    ]);
  });

  test("puts a condition of a new type first, as the real server does without $setElementOrder", () => {
    const out = patchNode({ status: { conditions: [cond("NetworkUnavailable", "False")] } });
    expect(out.status.conditions.map((c: Json) => c.type)).toEqual([
      "NetworkUnavailable",
      "Ready",
      "MemoryPressure",
      "DiskPressure",
    ]);
  });

  test("keeps server-only elements before patched ones that came after them", () => {
    const out = patchNode({ status: { conditions: [cond("DiskPressure", "True")] } });
    expect(out.status.conditions.map((c: Json) => c.type)).toEqual(["Ready", "MemoryPressure", "DiskPressure"]);
  });

  test("$setElementOrder orders the merged list", () => {
    const out = patchNode({
      status: {
        "$setElementOrder/conditions": [{ type: "DiskPressure" }, { type: "Ready" }, { type: "MemoryPressure" }],
        conditions: [cond("Ready", "False")],
      },
    });
    expect(out.status.conditions).toEqual([
      cond("DiskPressure", "False"),
      cond("Ready", "False"),
      cond("MemoryPressure", "False"),
    ]);
  });

  test("$setElementOrder alone reorders the list", () => {
    const out = patchNode({ status: { "$setElementOrder/addresses": [{ type: "Hostname" }, { type: "InternalIP" }] } });
    expect(out.status.addresses.map((a: Json) => a.type)).toEqual(["Hostname", "InternalIP"]);
  });

  test("$patch: delete removes the element with that key", () => {
    const out = patchNode({ status: { conditions: [{ type: "MemoryPressure", $patch: "delete" }] } });
    expect(out.status.conditions.map((c: Json) => c.type)).toEqual(["Ready", "DiskPressure"]);
  });

  test("a $patch: replace element replaces the whole list", () => {
    const out = patchNode({
      status: { addresses: [{ $patch: "replace" }, { type: "ExternalIP", address: "1.2.3.4" }] },
    });
    expect(out.status.addresses).toEqual([{ type: "ExternalIP", address: "1.2.3.4" }]);
  });

  test("merges status.addresses by type (the real tag, one address per type)", () => {
    const out = patchNode({ status: { addresses: [{ type: "InternalIP", address: "10.0.0.9" }] } });
    expect(out.status.addresses).toEqual([
      { type: "InternalIP", address: "10.0.0.9" },
      { type: "Hostname", address: "n1" },
    ]);
  });

  test("replaces spec.taints whole: the list is atomic in core/v1 (kubectl taint sends the full list)", () => {
    const out = patchNode({ spec: { taints: [taint("t2", "NoSchedule", "v")] } });
    expect(out.spec.taints).toEqual([taint("t2", "NoSchedule", "v")]);
  });

  test("metadata.finalizers merge as a set; $deleteFromPrimitiveList removes", () => {
    expect(patchNode({ metadata: { finalizers: ["b", "c"] } }).metadata.finalizers).toEqual(["a", "b", "c"]);
    const out = patchNode({ metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } });
    expect(out.metadata.finalizers).toEqual(["b"]);
  });

  test("$setElementOrder on a primitive list", () => {
    const out = patchNode({ metadata: { "$setElementOrder/finalizers": ["b", "a"] } });
    expect(out.metadata.finalizers).toEqual(["b", "a"]);
  });

  test("null deletes a map key, $patch: replace replaces a map", () => {
    expect(patchNode({ metadata: { labels: { x: null, y: "2" } } }).metadata.labels).toEqual({ y: "2" });
    const out = patchNode({ metadata: { labels: { $patch: "replace", z: "3" } } });
    expect(out.metadata.labels).toEqual({ z: "3" });
  });

  test("$patch: delete on a map removes it", () => {
    expect(patchNode({ spec: { $patch: "delete" } }).spec).toBeUndefined();
  });

  test("$retainKeys clears the fields it does not name", () => {
    const out = patchNode({ spec: { $retainKeys: ["taints"], taints: [] } });
    expect(out.spec).toEqual({ taints: [] });
  });

  test("rejects a merge-list element without its key, and unknown directives", () => {
    const noKey = () => patchNode({ status: { conditions: [{ status: "True" }] } });
    expect(noKey).toThrow(PatchError);
    const unknown = () => patchNode({ spec: { $patch: "explode" } });
    expect(unknown).toThrow(PatchError);
  });
});

describe("strategic merge patch on services", () => {
  const svc = () => ({
    spec: {
      ports: [
        { name: "http", port: 80, protocol: "TCP" },
        { name: "https", port: 443, protocol: "TCP" },
      ],
    },
    status: { loadBalancer: { ingress: [{ ip: "1.1.1.1" }, { ip: "2.2.2.2" }] } },
  });
  const patchSvc = (patch: unknown): Json => applyStrategicMergePatch(svc(), patch, mergeKeysFor("Service"));

  test("merges spec.ports by port", () => {
    const out = patchSvc({ spec: { ports: [{ port: 443, targetPort: 8443 }] } });
    expect(out.spec.ports).toEqual([
      { name: "http", port: 80, protocol: "TCP" },
      { name: "https", port: 443, protocol: "TCP", targetPort: 8443 },
    ]);
  });

  test("replaces status.loadBalancer.ingress whole (atomic)", () => {
    const out = patchSvc({ status: { loadBalancer: { ingress: [{ ip: "3.3.3.3" }] } } });
    expect(out.status.loadBalancer.ingress).toEqual([{ ip: "3.3.3.3" }]);
  });
});
