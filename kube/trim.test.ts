import { describe, expect, test } from "bun:test";
import { Resources } from "./client-types.ts";
import { cacheTransform } from "./informer.ts";
import type { KubeObject, Node, Service } from "./objects.ts";
import { kubeletNode } from "./testdata/kubelet-node.ts";
import { keepOnly, keptFields, NODE_FIELDS, SERVICE_FIELDS, uncovered } from "./trim.ts";

/** The value at a dotted path; lists are walked through, as keep-list paths are. */
function at(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split(".")) {
    if (Array.isArray(current)) current = current.map((v) => (v as Record<string, unknown>)?.[part]);
    else current = (current as Record<string, unknown> | undefined)?.[part];
  }
  return current;
}

/** A kubelet's Node with what the controllers and the cluster add: a provider ID, a deletion under way. */
const kubelet = ((n: Node): Node => ({
  ...n,
  metadata: { ...n.metadata, deletionTimestamp: "2024-05-02T10:00:00Z" },
  spec: { ...n.spec, providerID: "hcloud://123" },
}))(kubeletNode("worker-1", 3));
const trimmedNode = cacheTransform<Node>(Resources.nodes)(kubelet);

describe("the Node cache keeps what the controllers read", () => {
  test.each(NODE_FIELDS.map((path) => [path]))("keeps %s", (path) => {
    const value = at(kubelet, path);
    // The fixture sets every kept field, or this case would prove nothing.
    expect(value === undefined || (Array.isArray(value) && value.every((v) => v === undefined))).toBe(false);
    expect(at(trimmedNode, path)).toEqual(value);
  });

  test.each([
    ["metadata.managedFields"],
    ["metadata.creationTimestamp"],
    ["status.images"],
    ["status.capacity"],
    ["status.allocatable"],
    ["status.volumesInUse"],
    ["status.volumesAttached"],
    ["status.daemonEndpoints"],
    ["status.nodeInfo.kubeletVersion"],
    ["status.nodeInfo.bootID"],
    ["status.nodeInfo.machineID"],
    ["apiVersion"],
    ["kind"],
  ])("drops %s", (path) => {
    expect(at(kubelet, path)).toBeDefined();
    expect(at(trimmedNode, path)).toBeUndefined();
  });

  test.each([
    ["status.conditions.message"],
    ["status.conditions.lastHeartbeatTime"],
    ["status.conditions.lastTransitionTime"],
  ])("drops %s of every condition", (path) => {
    expect(at(trimmedNode, path)).toEqual(kubelet.status?.conditions?.map(() => undefined));
  });

  test("drops a field a newer Kubernetes adds (a keep-list, not a drop-list)", () => {
    const future = { ...kubelet, status: { ...kubelet.status, runtimeHandlers: [{ name: "runc" }] } } as Node;
    expect(at(cacheTransform<Node>(Resources.nodes)(future), "status.runtimeHandlers")).toBeUndefined();
  });

  test("keeps less than a fifth of a kubelet's Node bytes", () => {
    expect(JSON.stringify(trimmedNode).length).toBeLessThan(JSON.stringify(kubelet).length / 5);
  });

  test("leaves the object it trims as it was", () => {
    const node = kubeletNode("worker-1", 3);
    cacheTransform<Node>(Resources.nodes)(node);
    expect(node).toEqual(kubeletNode("worker-1", 3));
  });
});

describe("the Service cache", () => {
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "u1",
      resourceVersion: "7",
      creationTimestamp: "2024-05-01T10:00:00Z",
      deletionTimestamp: "2024-05-02T10:00:00Z",
      generation: 3,
      labels: { app: "web" },
      annotations: { "load-balancer.hetzner.cloud/location": "fsn1" },
      finalizers: ["service.kubernetes.io/load-balancer-cleanup"],
      managedFields: [{ manager: "kubectl", operation: "Apply" }],
    },
    spec: {
      type: "LoadBalancer",
      ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30080 }],
      externalTrafficPolicy: "Local",
      healthCheckNodePort: 31000,
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      futureField: { kept: "because spec is kept whole" },
    },
    status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] }, conditions: [{ type: "x", status: "True" }] },
  } as unknown as Service;
  const trimmed = cacheTransform<Service>(Resources.services)(service);

  test.each(SERVICE_FIELDS.map((path) => [path]))("keeps %s", (path) => {
    expect(at(service, path)).toBeDefined();
    expect(at(trimmed, path)).toEqual(at(service, path));
  });

  test.each([["metadata.managedFields"], ["metadata.generation"], ["metadata.labels"], ["status.conditions"]])(
    "drops %s",
    (path) => {
      expect(at(service, path)).toBeDefined();
      expect(at(trimmed, path)).toBeUndefined();
    },
  );
});

describe("keep-lists", () => {
  test("a widened keep-list keeps the extra fields too", () => {
    const wide = cacheTransform<Node>(Resources.nodes, ["status.nodeInfo.kubeletVersion", "status.capacity"])(kubelet);
    expect(wide.status?.nodeInfo?.kubeletVersion).toBe("v1.28.4");
    expect(wide.status?.nodeInfo?.systemUUID).toBe(kubelet.status?.nodeInfo?.systemUUID as string);
    expect(wide.status?.capacity).toEqual(kubelet.status?.capacity as Record<string, string>);
    expect(wide.status?.images).toBeUndefined();
  });

  test("a kind without a keep-list is cached whole, less managedFields", () => {
    const lease = { metadata: { name: "l", managedFields: [{}] }, spec: { holderIdentity: "me" } } as KubeObject;
    expect(keptFields(Resources.leases)).toBeUndefined();
    expect(cacheTransform(Resources.leases)(lease) as unknown).toEqual({
      metadata: { name: "l" },
      spec: { holderIdentity: "me" },
    });
  });

  test.each([
    [
      "a parent kept whole keeps what is under it",
      ["spec", "spec.ports.port"],
      { spec: { ports: [{ port: 1, x: 2 }] } },
    ],
    [
      "a parent listed after its child still keeps all",
      ["spec.ports.port", "spec"],
      { spec: { ports: [{ port: 1, x: 2 }] } },
    ],
    ["lists are walked through", ["spec.ports.port"], { spec: { ports: [{ port: 1 }] } }],
    ["an absent field stays absent", ["spec.nothing"], { spec: {} }],
    ["null is kept as null", ["status"], { status: null }],
  ] as const)("%s", (_what, paths, want) => {
    const obj = { metadata: { name: "x" }, spec: { ports: [{ port: 1, x: 2 }] }, status: null } as KubeObject;
    expect(keepOnly([...paths])(obj)).toEqual(want as unknown as KubeObject);
  });

  test.each([[""], ["status..images"], [".status"], ["status."]])("refuses the path %p, naming it", (path) => {
    expect(() => keepOnly([path])).toThrow(`keep-list path "${path}" is not a dotted field path`);
  });

  test.each([
    [["status"], ["status.images"], []],
    [["status.nodeInfo.systemUUID"], ["status.nodeInfo"], ["status.nodeInfo"]],
    [["status.nodeInfo"], ["status.nodeInfoX"], ["status.nodeInfoX"]],
    [["spec.providerID"], ["spec.providerID"], []],
  ])("uncovered(%p, %p) is %p", (kept, wanted, want) => {
    expect(uncovered(kept, wanted)).toEqual(want);
  });
});
