import { describe, expect, test } from "bun:test";
import { Finalizers } from "../../kube/well-known.ts";
import { AddressBook } from "./address-book.ts";
import { MetalAnnotations } from "./annotations.ts";
import { rebuildAllocations } from "./rebuild.ts";
import { kubeVipPools, service } from "./testing.ts";

const pools = kubeVipPools({ "cidr-global": "192.0.2.0/29,2001:db8::/125", "allow-share-team-s": "true" });
const record = (name: string, ips: string, namespace = "default") => ({
  [MetalAnnotations.allocatedIPs]: ips,
  [MetalAnnotations.allocatedFor]: `uid-${namespace}-${name}`,
});
const held = (book: AddressBook) => Object.fromEntries(book.allocations().map((a) => [a.holder.key, a.ips.join(",")]));

describe("rebuilding allocations from the Services", () => {
  test("restores every Service's own record, and adopts status addresses in a pool for Services without one", () => {
    const book = new AddressBook();
    const report = rebuildAllocations(book, pools, [
      service("a", { annotations: record("a", "192.0.2.3,2001:db8::3") }),
      service("b", { ingress: ["192.0.2.5", "203.0.113.9"] }),
      service("c", { ingress: ["203.0.113.10"] }),
      service("d"),
    ]);
    expect(held(book)).toEqual({ "default/a": "192.0.2.3,2001:db8::3", "default/b": "192.0.2.5" });
    expect(report).toMatchObject({ restored: 1, adopted: 1, conflicts: [], ignored: [] });
  });

  test("a copied record (foreign UID) is no claim", () => {
    const book = new AddressBook();
    rebuildAllocations(book, pools, [service("copy", { annotations: record("original", "192.0.2.3") })]);
    expect(book.size).toBe(0);
  });

  test("the older Service keeps a contested address; the other's claim is dropped and reported", () => {
    const book = new AddressBook();
    const report = rebuildAllocations(book, pools, [
      service("young", { annotations: record("young", "192.0.2.3"), created: "2026-02-01T00:00:00Z" }),
      service("old", { annotations: record("old", "192.0.2.3"), created: "2026-01-01T00:00:00Z" }),
      service("status", { ingress: ["192.0.2.3"], created: "2025-01-01T00:00:00Z" }),
    ]);
    expect(held(book)).toEqual({ "default/old": "192.0.2.3" });
    expect(report.conflicts).toEqual([
      'Service default/young records 192.0.2.3, but it is held by Service default/old, and sharing is not allowed for namespace "default"',
      'Service default/status reports in its status 192.0.2.3, but it is held by Service default/old, and sharing is not allowed for namespace "default"',
    ]);
  });

  test("shared addresses come back shared when sharing is allowed and the ports differ", () => {
    const book = new AddressBook();
    const report = rebuildAllocations(book, pools, [
      service("a", { namespace: "team-s", annotations: record("a", "192.0.2.3", "team-s") }),
      service("b", { namespace: "team-s", ports: [["TCP", 443]], annotations: record("b", "192.0.2.3", "team-s") }),
    ]);
    expect(report.conflicts).toEqual([]);
    expect(book.holdersOf("192.0.2.3").map((h) => h.key)).toEqual(["team-s/a", "team-s/b"]);
  });

  test("a record on a Service that no longer is a load balancer is held only while its cleanup is pending", () => {
    const book = new AddressBook();
    const report = rebuildAllocations(book, pools, [
      service("pending", {
        type: "ClusterIP",
        annotations: record("pending", "192.0.2.3"),
        finalizers: [Finalizers.loadBalancerCleanup],
      }),
      service("classed", { loadBalancerClass: "other", annotations: record("classed", "192.0.2.4") }),
      service("deleting", {
        annotations: record("deleting", "192.0.2.5"),
        finalizers: [Finalizers.loadBalancerCleanup],
      }),
    ]);
    expect(held(book)).toEqual({ "default/pending": "192.0.2.3", "default/deleting": "192.0.2.5" });
    expect(report.ignored).toEqual(["Service default/classed records 192.0.2.4 but is not a load balancer of ours"]);
  });

  test("under declared classes, only Services of a served class hold addresses, cleanup pending or not", () => {
    const classes = { names: ["metal.example.com/pool"], classless: false };
    const book = new AddressBook();
    const report = rebuildAllocations(
      book,
      pools,
      [
        service("ours", { loadBalancerClass: "metal.example.com/pool", annotations: record("ours", "192.0.2.3") }),
        service("theirs", {
          loadBalancerClass: "other.example.com/lb",
          annotations: record("theirs", "192.0.2.4"),
          finalizers: [Finalizers.loadBalancerCleanup],
        }),
        service("classless", { annotations: record("classless", "192.0.2.5") }),
        service("adopted", { loadBalancerClass: "metal.example.com/pool", ingress: ["192.0.2.6"] }),
        service("foreign-status", { loadBalancerClass: "other.example.com/lb", ingress: ["192.0.2.1"] }),
      ],
      classes,
    );
    expect(held(book)).toEqual({ "default/ours": "192.0.2.3", "default/adopted": "192.0.2.6" });
    expect(report.ignored).toEqual([
      "Service default/classless records 192.0.2.5 but is not a load balancer of ours",
      "Service default/theirs records 192.0.2.4 but is not a load balancer of ours",
    ]);
  });

  test("rebuilding replaces what the book held before", () => {
    const book = new AddressBook();
    rebuildAllocations(book, pools, [service("a", { annotations: record("a", "192.0.2.3") })]);
    rebuildAllocations(book, pools, [service("b", { annotations: record("b", "192.0.2.4") })]);
    expect(held(book)).toEqual({ "default/b": "192.0.2.4" });
    expect(book.isHeld(4, 0xc0000203n)).toBe(false);
  });
});
