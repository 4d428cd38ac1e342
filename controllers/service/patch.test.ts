import { describe, expect, test } from "bun:test";
import type { LoadBalancerIngress, Service } from "../../kube/objects.ts";
import { servicePatch, withFinalizer, withLoadBalancerStatus, withoutFinalizer } from "./patch.ts";
import { cleanup, finalizers, ingress, service, spec } from "./test-fixtures.ts";

const json = (v: unknown) => JSON.stringify(v);
const withFinalizers = (...f: string[]): Service => service("s", finalizers(...f));

describe("servicePatch: finalizers", () => {
  test.each<[string, string[], string[], string]>([
    [
      "adding bar to [foo] (upstream's example)",
      ["foo"],
      ["foo", "bar"],
      '{"metadata":{"$setElementOrder/finalizers":["foo","bar"],"finalizers":["bar"]}}',
    ],
    ["adding to none sends the whole list", [], [cleanup], `{"metadata":{"finalizers":["${cleanup}"]}}`],
    ["removing the only one clears the field", [cleanup], [], '{"metadata":{"finalizers":null}}'],
    [
      "removing one of several",
      ["foo", cleanup],
      ["foo"],
      `{"metadata":{"$deleteFromPrimitiveList/finalizers":["${cleanup}"],"$setElementOrder/finalizers":["foo"]}}`,
    ],
    [
      "removing every occurrence lists it once",
      [cleanup, "foo", cleanup],
      ["foo"],
      `{"metadata":{"$deleteFromPrimitiveList/finalizers":["${cleanup}"],"$setElementOrder/finalizers":["foo"]}}`,
    ],
    [
      "adding keeps the new list's order for additions",
      ["z", "a"],
      ["z", "a", "m", "b"],
      '{"metadata":{"$setElementOrder/finalizers":["z","a","m","b"],"finalizers":["m","b"]}}',
    ],
    ["no change, sorted", ["a", "b"], ["a", "b"], "{}"],
    // Upstream compares the sorted old list with the new one; a list that was not sorted yields an order directive.
    [
      "no change, unsorted (upstream quirk)",
      ["b", "a"],
      ["b", "a"],
      '{"metadata":{"$setElementOrder/finalizers":["b","a"]}}',
    ],
  ])("%s", (_name, before, after, want) => {
    expect(json(servicePatch(withFinalizers(...before), withFinalizers(...after)))).toBe(want);
  });

  test("withFinalizer appends once; withoutFinalizer drops every occurrence and keeps the rest", () => {
    const once = withFinalizer(withFinalizers("foo"));
    expect(once.metadata?.finalizers).toEqual(["foo", cleanup]);
    expect(withFinalizer(once)).toBe(once);
    expect(withoutFinalizer(withFinalizers(cleanup, "foo", cleanup)).metadata?.finalizers).toEqual(["foo"]);
    const original = withFinalizers("foo");
    withFinalizer(original);
    expect(original.metadata?.finalizers).toEqual(["foo"]);
  });

  test("the finalizer patches of the controller's own writes", () => {
    const svc = service("s");
    expect(json(servicePatch(svc, withFinalizer(svc)))).toBe(
      '{"metadata":{"finalizers":["service.kubernetes.io/load-balancer-cleanup"]}}',
    );
    const held = withFinalizer(svc);
    expect(json(servicePatch(held, withoutFinalizer(held)))).toBe('{"metadata":{"finalizers":null}}');
  });
});

describe("servicePatch: status", () => {
  const ip = (addr: string, extra: Partial<LoadBalancerIngress> = {}): LoadBalancerIngress => ({ ip: addr, ...extra });

  test.each<[string, Service, LoadBalancerIngress[], string]>([
    ["first ingress", service("s"), [ip("1.2.3.4")], '{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}'],
    [
      "changed ingress replaces the list",
      service("s", ingress(ip("1.2.3.4"), ip("5.6.7.8"))),
      [ip("1.2.3.5")],
      '{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.5"}]}}}',
    ],
    ["cleared ingress", service("s", ingress(ip("1.2.3.4"))), [], '{"status":{"loadBalancer":{"ingress":null}}}'],
    [
      "Go's field set, keys sorted",
      service("s"),
      [{ ports: [{ protocol: "TCP", port: 80, error: "boom" }], ipMode: "VIP", ip: "1.2.3.4", hostname: "" }],
      '{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4","ipMode":"VIP","ports":[{"error":"boom","port":80,"protocol":"TCP"}]}]}}}',
    ],
    ["same ingress", service("s", ingress(ip("1.2.3.4"))), [ip("1.2.3.4", { ports: [] })], "{}"],
  ])("%s", (_name, old, next, want) => {
    expect(json(servicePatch(old, withLoadBalancerStatus(old, { ingress: next })))).toBe(want);
  });

  test("leaves the spec out even if the updated copy differs", () => {
    const old = service("s");
    const updated = spec({ type: "ClusterIP" })(withLoadBalancerStatus(old, { ingress: [{ ip: "1.1.1.1" }] }));
    expect(json(servicePatch(old, updated))).toBe('{"status":{"loadBalancer":{"ingress":[{"ip":"1.1.1.1"}]}}}');
  });
});
