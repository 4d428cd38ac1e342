import { describe, expect, test } from "bun:test";
import {
  clearPatch,
  familyWants,
  hasRecord,
  KubeVipAnnotations,
  MetalAnnotations,
  portClaim,
  readRecord,
  readRequest,
  recordPatch,
} from "./annotations.ts";
import { service } from "./testing.ts";

const record = (ips: string, uid = "uid-default-a") => ({
  [MetalAnnotations.allocatedIPs]: ips,
  [MetalAnnotations.allocatedFor]: uid,
});

describe("the allocation record", () => {
  test.each([
    ["its own record, canonicalised", record("192.0.2.1, 2001:DB8::1"), ["192.0.2.1", "2001:db8::1"]],
    ["a record copied from another Service (foreign UID)", record("192.0.2.1", "someone-else"), undefined],
    ["a record without its UID", { [MetalAnnotations.allocatedIPs]: "192.0.2.1" }, undefined],
    ["an unreadable record", record("192.0.2.1,banana"), undefined],
    ["an empty record", record(""), undefined],
    ["no record", {}, undefined],
  ])("reads %s", (_, annotations, want) => {
    expect(readRecord(service("a", { annotations }))).toEqual(want);
  });

  test("the record patch carries the UID precondition, and the kube-vip annotations when enabled", () => {
    const svc = service("a");
    expect(recordPatch(svc, ["192.0.2.1", "2001:db8::1"], { kubeVip: true, serviceInterface: "eth1" })).toEqual({
      metadata: {
        uid: "uid-default-a",
        annotations: {
          [MetalAnnotations.allocatedIPs]: "192.0.2.1,2001:db8::1",
          [MetalAnnotations.allocatedFor]: "uid-default-a",
          [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.1,2001:db8::1",
          [KubeVipAnnotations.serviceInterface]: "eth1",
        },
      },
    });
    expect(recordPatch(svc, ["192.0.2.1"], { kubeVip: false })).toEqual({
      metadata: { uid: "uid-default-a", annotations: record("192.0.2.1") },
    });
  });

  test("hasRecord tells when no write is needed", () => {
    const written = service("a", {
      annotations: { ...record("192.0.2.1"), [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.1" },
    });
    expect(hasRecord(written, ["192.0.2.1"], { kubeVip: true })).toBe(true);
    expect(hasRecord(written, ["192.0.2.2"], { kubeVip: true })).toBe(false);
    expect(hasRecord(service("a", { annotations: record("192.0.2.1") }), ["192.0.2.1"], { kubeVip: true })).toBe(false);
  });

  test("clearing removes the kube-vip annotation only when it repeats the record", () => {
    const echo = service("a", {
      annotations: { ...record("192.0.2.1"), [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.1" },
    });
    expect(clearPatch(echo, ["192.0.2.1"])).toEqual({
      metadata: {
        uid: "uid-default-a",
        annotations: {
          [MetalAnnotations.allocatedIPs]: null,
          [MetalAnnotations.allocatedFor]: null,
          [KubeVipAnnotations.loadBalancerIPs]: null,
        },
      },
    });
    const asked = service("a", {
      annotations: { ...record("192.0.2.1"), [KubeVipAnnotations.loadBalancerIPs]: "192.0.2.9" },
    });
    expect(clearPatch(asked, ["192.0.2.1"])).toEqual({
      metadata: {
        uid: "uid-default-a",
        annotations: { [MetalAnnotations.allocatedIPs]: null, [MetalAnnotations.allocatedFor]: null },
      },
    });
  });
});

describe("requests", () => {
  const kv = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips });
  test.each([
    ["nothing", {}, undefined, undefined],
    [
      "spec.loadBalancerIP",
      { loadBalancerIP: "192.0.2.5" },
      undefined,
      { ips: ["192.0.2.5"], source: "spec.loadBalancerIP" },
    ],
    ["spec.loadBalancerIP it already holds", { loadBalancerIP: "192.0.2.5" }, ["192.0.2.5"], undefined],
    [
      "the kube-vip annotation over spec.loadBalancerIP",
      { loadBalancerIP: "192.0.2.5", annotations: kv("192.0.2.6, 2001:db8::6") },
      undefined,
      { ips: ["192.0.2.6", "2001:db8::6"], source: "annotation kube-vip.io/loadbalancerIPs" },
    ],
    [
      "the kube-vip annotation repeating what it holds",
      { annotations: kv("2001:DB8::6,192.0.2.6") },
      ["192.0.2.6", "2001:db8::6"],
      undefined,
    ],
    [
      "spec.loadBalancerIP when the annotation only repeats what it holds",
      { loadBalancerIP: "192.0.2.7", annotations: kv("192.0.2.6") },
      ["192.0.2.6"],
      { ips: ["192.0.2.7"], source: "spec.loadBalancerIP" },
    ],
  ])("reads %s", (_, tweaks, held, want) => {
    expect(readRequest(service("a", tweaks), held)).toEqual(want);
  });

  test("the kube-vip annotation repeating the Service's own record is no request, even when it no longer holds it", () => {
    const svc = service("a", { annotations: kv("192.0.2.6") });
    expect(readRequest(svc, undefined, ["192.0.2.6"])).toBeUndefined();
    expect(readRequest(svc, undefined, ["192.0.2.7"])?.ips).toEqual(["192.0.2.6"]);
  });

  test("families and ports", () => {
    expect(familyWants(service("a"))).toEqual({ policy: "SingleStack", families: [] });
    expect(familyWants(service("a", { policy: "RequireDualStack", families: ["IPv6", "IPv4"] }))).toEqual({
      policy: "RequireDualStack",
      families: [6, 4],
    });
    expect(portClaim(service("a", { ports: [] }))).toBe("all");
    expect(
      portClaim(
        service("a", {
          ports: [
            ["UDP", 53],
            ["TCP", 53],
          ],
        }),
      ),
    ).toEqual(new Set(["UDP/53", "TCP/53"]));
  });
});
