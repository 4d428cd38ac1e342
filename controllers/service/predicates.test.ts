import { describe, expect, test } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import {
  cleanupReason,
  excludedByLabel,
  hasFinalizer,
  inStableSet,
  needsCleanup,
  needsUpdate,
  nodeIncluded,
  nodeNotDeleted,
  nodeReady,
  nodeSyncReason,
  nodesSufficientlyEqual,
  nodeUntainted,
  notOurLoadBalancer,
  outsideStableSet,
  parseGoBool,
  shouldSyncUpdatedNode,
  stableNodes,
  strictDeepEqual,
  updateReason,
  wantsLoadBalancer,
} from "./predicates.ts";
import {
  annotations,
  autoscaler,
  cleanup,
  deleting,
  excludeLabel,
  finalizers,
  ingress,
  label,
  lbClass,
  meta,
  names,
  noConditions,
  node,
  nodeDeleting,
  providerID,
  ready,
  service,
  serviceUID,
  spec,
  taint,
  type,
} from "./test-fixtures.ts";

describe("which Services are ours", () => {
  test.each([
    ["a LoadBalancer without class", service("s"), true, undefined],
    ["a ClusterIP Service", service("s", type("ClusterIP")), false, 'type is "ClusterIP", not LoadBalancer'],
    ["a Service without spec", { metadata: { name: "s" } }, false, 'type is "", not LoadBalancer'],
    ["a LoadBalancer with a class", service("s", lbClass("x")), false, 'spec.loadBalancerClass is set ("x")'],
    ["a LoadBalancer with an empty class", service("s", lbClass("")), false, 'spec.loadBalancerClass is set ("")'],
  ])("%s: wants=%p", (_name, svc: Service, wants, reason) => {
    expect(wantsLoadBalancer(svc)).toBe(wants);
    expect(notOurLoadBalancer(svc)).toBe(reason);
  });

  test.each([
    ["finalizer and deletion", service("s", finalizers(cleanup), deleting()), true],
    [
      "finalizer on a Service that is no longer a LoadBalancer",
      service("s", finalizers(cleanup), type("NodePort")),
      true,
    ],
    ["finalizer on a LoadBalancer", service("s", finalizers(cleanup)), false],
    ["finalizer on a LoadBalancer that gained a class", service("s", finalizers(cleanup), lbClass("x")), false],
    ["deletion without finalizer", service("s", deleting(), type("ClusterIP")), false],
    ["another finalizer only", service("s", finalizers("other"), deleting()), false],
  ])("needs cleanup with %s: %p", (_name, svc, want) => {
    expect(needsCleanup(svc)).toBe(want);
    expect(cleanupReason(svc) !== undefined).toBe(want);
  });

  test("sees the finalizer among others", () => {
    expect(hasFinalizer(service("s", finalizers("a", cleanup)))).toBe(true);
    expect(hasFinalizer(service("s", finalizers("a")))).toBe(false);
    expect(hasFinalizer(service("s"))).toBe(false);
  });
});

describe("needsUpdate", () => {
  const base = service("s", spec({ sessionAffinity: "None", externalTrafficPolicy: "Cluster", ipFamilies: ["IPv4"] }));
  const port = (fields: Record<string, unknown>): Service => ({
    ...base,
    spec: { ...base.spec, ports: [{ ...base.spec?.ports?.[0], ...fields } as never] },
  });

  test.each<[string, Service, Service, string | undefined]>([
    [
      "neither wants a load balancer, whatever changed",
      service("s", type("ClusterIP")),
      service("s", type("NodePort"), annotations({ a: "b" })),
      undefined,
    ],
    ["1. no change", base, base, undefined],
    [
      "2. type leaves LoadBalancer",
      base,
      service("s", type("ClusterIP")),
      "wants a load balancer changed from true to false",
    ],
    [
      "2. type becomes LoadBalancer",
      service("s", type("ClusterIP")),
      base,
      "wants a load balancer changed from false to true",
    ],
    ["2. a class appears", base, service("s", lbClass("x")), "wants a load balancer changed from true to false"],
    [
      "3. source ranges change",
      base,
      service("s", spec({ loadBalancerSourceRanges: ["10.0.0.0/8"] })),
      "loadBalancerSourceRanges changed",
    ],
    [
      "3. source ranges: absent vs empty (strict)",
      base,
      service("s", spec({ loadBalancerSourceRanges: [] })),
      "loadBalancerSourceRanges changed",
    ],
    [
      "4. a port is added",
      base,
      service("s", spec({ ports: [...(base.spec?.ports ?? []), { port: 443 }] })),
      "ports changed",
    ],
    ["4. port name", base, port({ name: "web" }), "ports changed"],
    ["4. port protocol", base, port({ protocol: "UDP" }), "ports changed"],
    ["4. port number", base, port({ port: 81 }), "ports changed"],
    ["4. nodePort", base, port({ nodePort: 30081 }), "ports changed"],
    ["4. targetPort int vs string", base, port({ targetPort: "8080" }), "ports changed"],
    ["4. appProtocol unset vs empty", base, port({ appProtocol: "" }), "ports changed"],
    ["5. sessionAffinity", base, spec({ sessionAffinity: "ClientIP" })(base), "sessionAffinity changed"],
    [
      "5. sessionAffinityConfig absent vs empty (strict)",
      base,
      spec({ sessionAffinityConfig: {} })(base),
      "sessionAffinityConfig changed",
    ],
    ["6. loadBalancerIP", base, spec({ loadBalancerIP: "1.2.3.4" })(base), "loadBalancerIP changed"],
    ["7. externalIPs count", base, spec({ externalIPs: ["1.1.1.1"] })(base), "externalIPs count changed"],
    [
      "7. externalIPs position",
      spec({ externalIPs: ["1.1.1.1", "2.2.2.2"] })(base),
      spec({ externalIPs: ["2.2.2.2", "1.1.1.1"] })(base),
      "externalIPs changed",
    ],
    ["8. annotations", base, annotations({ a: "b" })(base), "annotations changed"],
    ["8. annotations absent vs empty (strict)", base, annotations({})(base), "annotations changed"],
    ["9. UID", base, serviceUID("other")(base), "UID changed"],
    [
      "10. externalTrafficPolicy",
      base,
      spec({ externalTrafficPolicy: "Local" })(base),
      "externalTrafficPolicy changed",
    ],
    ["11. healthCheckNodePort", base, spec({ healthCheckNodePort: 32000 })(base), "healthCheckNodePort changed"],
    ["12. ipFamilies count", base, spec({ ipFamilies: ["IPv4", "IPv6"] })(base), "ipFamilies count changed"],
  ])("%s", (_name, old, cur, reason) => {
    expect(updateReason(old, cur)).toBe(reason);
    expect(needsUpdate(old, cur)).toBe(reason !== undefined);
  });

  test.each<[string, Service]>(
    [
      ["labels", meta({ labels: { a: "b" } })(base)],
      ["finalizers", finalizers(cleanup)(base)],
      ["status", ingress({ ip: "1.2.3.4" })(base)],
      ["allocateLoadBalancerNodePorts", spec({ allocateLoadBalancerNodePorts: false })(base)],
      ["ipFamilyPolicy", spec({ ipFamilyPolicy: "PreferDualStack" })(base)],
      ["internalTrafficPolicy", spec({ internalTrafficPolicy: "Local" })(base)],
      ["ipFamilies values (count unchanged)", spec({ ipFamilies: ["IPv6"] })(base)],
      ["clusterIP", spec({ clusterIP: "10.96.0.10" })(base)],
    ].map(([n, s]) => [n, s] as [string, Service]),
  )("ignores a change of %s", (_name, cur) => {
    expect(needsUpdate(base, cur)).toBe(false);
  });

  test("reads absent targetPort and nodePort as 0, as Go's zero values", () => {
    expect(needsUpdate(port({ targetPort: 0 }), port({ targetPort: undefined }))).toBe(false);
    expect(needsUpdate(port({ nodePort: 0 }), port({ nodePort: undefined }))).toBe(false);
    expect(needsUpdate(port({ appProtocol: undefined }), port({ appProtocol: null }))).toBe(false);
  });

  test("strict equality tells nil from empty but not undefined from null", () => {
    expect(strictDeepEqual(undefined, null)).toBe(true);
    expect(strictDeepEqual(undefined, [])).toBe(false);
    expect(strictDeepEqual({}, undefined)).toBe(false);
    expect(strictDeepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(strictDeepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(strictDeepEqual([1], { 0: 1 })).toBe(false);
  });
});

describe("node predicates", () => {
  test.each([
    ["no label", node("n"), true],
    ...["1", "t", "T", "TRUE", "true", "True"].map(
      (v) => [`label ${v}`, node("n", label(excludeLabel, v)), false] as const,
    ),
    ...["0", "f", "F", "FALSE", "false", "False"].map(
      (v) => [`label ${v}`, node("n", label(excludeLabel, v)), true] as const,
    ),
    ["empty label value", node("n", label(excludeLabel, "")), false],
    ["unparsable label value", node("n", label(excludeLabel, "yes")), false],
    ["another label", node("n", label("other", "true")), true],
  ])("inclusion with %s: %p", (_name, n: Node, included) => {
    expect(nodeIncluded(n)).toBe(included);
  });

  test("says why a node is excluded", () => {
    expect(excludedByLabel(node("n", label(excludeLabel, "true")))).toBe(`labelled ${excludeLabel}=true`);
    expect(excludedByLabel(node("n", label(excludeLabel, "yes")))).toBe(
      `label ${excludeLabel}="yes" is not a boolean (read as excluded)`,
    );
    expect(outsideStableSet(node("n", taint(autoscaler, "NoExecute")))).toBe(`tainted ${autoscaler}`);
    expect(outsideStableSet(node("n", nodeDeleting(), taint(autoscaler)))).toBe("being deleted");
  });

  test("parses booleans as Go's strconv.ParseBool", () => {
    expect(["1", "t", "T", "TRUE", "true", "True"].map(parseGoBool)).toEqual(Array(6).fill(true));
    expect(["0", "f", "F", "FALSE", "false", "False"].map(parseGoBool)).toEqual(Array(6).fill(false));
    expect(["", "tRue", "yes", " true"].map(parseGoBool)).toEqual(Array(4).fill(undefined));
  });

  test.each([
    ["a plain node", node("n"), { untainted: true, notDeleted: true, ready: true, stable: true }],
    [
      "an autoscaler taint (any effect)",
      node("n", taint(autoscaler, "PreferNoSchedule")),
      { untainted: false, notDeleted: true, ready: true, stable: false },
    ],
    ["another taint", node("n", taint("other")), { untainted: true, notDeleted: true, ready: true, stable: true }],
    [
      "a deletion timestamp",
      node("n", nodeDeleting()),
      { untainted: true, notDeleted: false, ready: true, stable: false },
    ],
    [
      "NotReady (readiness is not part of the stable set)",
      node("n", ready(false)),
      { untainted: true, notDeleted: true, ready: false, stable: true },
    ],
    [
      "no Ready condition",
      node("n", noConditions()),
      { untainted: true, notDeleted: true, ready: false, stable: true },
    ],
    [
      "the exclusion label",
      node("n", label(excludeLabel, "true")),
      { untainted: true, notDeleted: true, ready: true, stable: false },
    ],
  ])("judges %s", (_name, n: Node, want) => {
    expect({
      untainted: nodeUntainted(n),
      notDeleted: nodeNotDeleted(n),
      ready: nodeReady(n),
      stable: inStableSet(n),
    }).toEqual(want);
  });

  test("filters the stable node set in order", () => {
    const nodes = [node("a"), node("b", taint(autoscaler)), node("c", ready(false)), node("d", nodeDeleting())];
    expect(names(stableNodes(nodes))).toEqual(["a", "c"]);
  });

  test.each([
    ["the exclusion label appears", node("n"), node("n", label(excludeLabel, "true")), true],
    [
      "the exclusion label turns false",
      node("n", label(excludeLabel, "true")),
      node("n", label(excludeLabel, "false")),
      true,
    ],
    [
      "the exclusion label changes but stays excluding",
      node("n", label(excludeLabel, "true")),
      node("n", label(excludeLabel, "junk")),
      false,
    ],
    ["providerID changes", node("n"), node("n", providerID("fake://other")), true],
    ["readiness changes", node("n"), node("n", ready(false)), false],
    ["the autoscaler taint appears", node("n"), node("n", taint(autoscaler)), false],
    ["deletion starts", node("n"), node("n", nodeDeleting()), false],
    ["another label changes", node("n"), node("n", label("x", "y")), false],
  ])("a node update syncs load balancers when %s: %p", (_name, old, cur, want) => {
    expect(shouldSyncUpdatedNode(old, cur)).toBe(want);
    expect(nodeSyncReason(old, cur) !== undefined).toBe(want);
  });

  test.each([
    ["the same nodes in another order", [node("a"), node("b")], [node("b"), node("a")], true],
    ["a node more", [node("a")], [node("a"), node("b")], false],
    ["another node of the same count", [node("a")], [node("b")], false],
    ["a changed providerID", [node("a")], [node("a", providerID("x"))], false],
    ["a changed readiness", [node("a")], [node("a", ready(false))], true],
    ["both empty", [], [], true],
    ["a duplicate on one side", [node("a"), node("a")], [node("a"), node("b")], false],
  ])("node sets are sufficiently equal with %s: %p", (_name, a, b, want) => {
    expect(nodesSufficientlyEqual(a, b)).toBe(want);
  });
});
