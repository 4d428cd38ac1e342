import { describe, expect, test } from "bun:test";
import { readAnnotation } from "../kit/annotations/declare.ts";
import {
  clearPatch,
  familyWants,
  hasRecord,
  KubeVipAnnotations,
  kubeVipOwner,
  MetalAnnotations,
  MetalRecordAnnotations,
  MetalServiceAnnotations,
  portClaim,
  readRecord,
  readRequest,
  recordPatch,
  requestConflict,
} from "./annotations.ts";
import { service } from "./testing.ts";

const record = (ips: string, uid = "uid-default-a") => ({
  [MetalAnnotations.allocatedIPs]: ips,
  [MetalAnnotations.allocatedFor]: uid,
});
/** The kube-vip annotation as the provider writes it: with its echo. */
const echo = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips, [MetalAnnotations.kubeVipEcho]: ips });
/** The kube-vip annotation as a user writes it. */
const kv = (ips: string) => ({ [KubeVipAnnotations.loadBalancerIPs]: ips });

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
          [MetalAnnotations.kubeVipEcho]: "192.0.2.1,2001:db8::1",
          [KubeVipAnnotations.serviceInterface]: "eth1",
        },
      },
    });
    expect(recordPatch(svc, ["192.0.2.1"], { kubeVip: false })).toEqual({
      metadata: { uid: "uid-default-a", annotations: record("192.0.2.1") },
    });
  });

  test("the record patch never writes over the user's kube-vip annotation, and drops an echo it outdated", () => {
    const asked = service("a", { annotations: { ...kv("192.0.2.9"), [MetalAnnotations.kubeVipEcho]: "192.0.2.1" } });
    expect(recordPatch(asked, ["192.0.2.9"], { kubeVip: true })).toEqual({
      metadata: {
        uid: "uid-default-a",
        annotations: { ...record("192.0.2.9"), [MetalAnnotations.kubeVipEcho]: null },
      },
    });
    expect(recordPatch(service("a", { annotations: kv("192.0.2.9") }), ["192.0.2.9"], { kubeVip: true })).toEqual({
      metadata: { uid: "uid-default-a", annotations: record("192.0.2.9") },
    });
  });

  test.each([
    ["absent", {}, "none"],
    ["the provider's echo", echo("192.0.2.1"), "provider"],
    ["written by the user", kv("192.0.2.1"), "user"],
    ["changed by the user after the provider wrote it", { ...echo("192.0.2.1"), ...kv("192.0.2.2") }, "user"],
  ])("tells who wrote the kube-vip annotation: %s", (_, annotations, want) => {
    expect(kubeVipOwner(service("a", { annotations }))).toBe(want as never);
  });

  test("hasRecord tells when no write is needed", () => {
    const written = service("a", { annotations: { ...record("192.0.2.1"), ...echo("192.0.2.1") } });
    expect(hasRecord(written, ["192.0.2.1"], { kubeVip: true })).toBe(true);
    expect(hasRecord(written, ["192.0.2.2"], { kubeVip: true })).toBe(false);
    expect(hasRecord(service("a", { annotations: record("192.0.2.1") }), ["192.0.2.1"], { kubeVip: true })).toBe(false);
    const userAsked = service("a", { annotations: { ...record("192.0.2.1"), ...kv("192.0.2.1") } });
    expect(hasRecord(userAsked, ["192.0.2.1"], { kubeVip: true })).toBe(true);
  });

  test("clearing removes the kube-vip annotation only when it is the provider's echo", () => {
    const echoed = service("a", { annotations: { ...record("192.0.2.1"), ...echo("192.0.2.1") } });
    expect(clearPatch(echoed)).toEqual({
      metadata: {
        uid: "uid-default-a",
        annotations: {
          [MetalAnnotations.allocatedIPs]: null,
          [MetalAnnotations.allocatedFor]: null,
          [MetalAnnotations.kubeVipEcho]: null,
          [KubeVipAnnotations.loadBalancerIPs]: null,
        },
      },
    });
    for (const asked of ["192.0.2.9", "192.0.2.1"]) {
      const svc = service("a", { annotations: { ...record("192.0.2.1"), ...kv(asked) } });
      expect(clearPatch(svc)).toEqual({
        metadata: {
          uid: "uid-default-a",
          annotations: { [MetalAnnotations.allocatedIPs]: null, [MetalAnnotations.allocatedFor]: null },
        },
      });
    }
  });
});

describe("requests", () => {
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
      "the provider's echo as no request",
      { annotations: echo("192.0.2.6,2001:db8::6") },
      ["192.0.2.6", "2001:db8::6"],
      undefined,
    ],
    [
      "the provider's echo as no request, even when the Service no longer holds it",
      { annotations: echo("192.0.2.6") },
      undefined,
      undefined,
    ],
    [
      "the user's annotation repeating what it holds, canonicalised",
      { annotations: kv("2001:DB8::6,192.0.2.6") },
      ["192.0.2.6", "2001:db8::6"],
      { ips: ["2001:db8::6", "192.0.2.6"], source: "annotation kube-vip.io/loadbalancerIPs" },
    ],
    [
      "spec.loadBalancerIP when the annotation is the provider's echo of what it holds",
      { loadBalancerIP: "192.0.2.7", annotations: echo("192.0.2.6") },
      ["192.0.2.6"],
      { ips: ["192.0.2.7"], source: "spec.loadBalancerIP" },
    ],
    [
      "the user's annotation over spec.loadBalancerIP, even when it holds what the annotation asks",
      { loadBalancerIP: "192.0.2.7", annotations: kv("192.0.2.6") },
      ["192.0.2.6"],
      { ips: ["192.0.2.6"], source: "annotation kube-vip.io/loadbalancerIPs" },
    ],
    [
      "an unreadable annotation as written, for the planner to quote",
      { annotations: kv("192.0.2.x, 192.0.2.1") },
      undefined,
      { ips: ["192.0.2.x", "192.0.2.1"], source: "annotation kube-vip.io/loadbalancerIPs" },
    ],
  ])("reads %s", (_, tweaks, held, want) => {
    expect(readRequest(service("a", tweaks), held)).toEqual(want);
  });

  test.each([
    [
      "the user's annotation and spec.loadBalancerIP asking for different addresses",
      kv("192.0.2.6"),
      "192.0.2.7",
      true,
    ],
    ["spec.loadBalancerIP among the annotation's addresses", kv("2001:db8::6,192.0.2.6"), "192.0.2.6", false],
    ["the same address spelled differently", kv("2001:DB8::6"), "2001:db8::6", false],
    ["the provider's echo and a new spec.loadBalancerIP (a move)", echo("192.0.2.6"), "192.0.2.7", false],
    ["the annotation alone", kv("192.0.2.6"), undefined, false],
  ])("a conflict is %s: %p", (_, annotations, loadBalancerIP, conflict) => {
    const svc = service("a", { annotations, ...(loadBalancerIP ? { loadBalancerIP } : {}) });
    expect(requestConflict(svc) !== undefined).toBe(conflict);
  });

  test("the conflict warning names both values and which one wins", () => {
    expect(requestConflict(service("a", { annotations: kv("192.0.2.6"), loadBalancerIP: "192.0.2.7" }))).toBe(
      'kube-vip.io/loadbalancerIPs ("192.0.2.6") and spec.loadBalancerIP ("192.0.2.7") ask for different addresses: the annotation wins and spec.loadBalancerIP is ignored; remove one of them',
    );
  });

  test("an unreadable kube-vip annotation is one problem naming every bad address", () => {
    const { problems } = MetalServiceAnnotations.read(
      service("a", { annotations: kv("192.0.2.x, 192.0.2.1,fe80::1%eth0") }),
    );
    expect(problems).toEqual([
      {
        key: "kube-vip.io/loadbalancerIPs",
        value: "192.0.2.x, 192.0.2.1,fe80::1%eth0",
        reason: 'not an IPv4 or IPv6 address: "192.0.2.x", "fe80::1%eth0"',
        accepts: "a comma-separated list, each an IPv4 or IPv6 address",
      },
    ]);
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

test.each([...MetalServiceAnnotations.list, ...MetalRecordAnnotations.list].map((a) => [a.key, a] as const))(
  "%s: the documented example reads",
  (_, a) => {
    expect(readAnnotation(service("a", { annotations: { [a.key]: a.example } }), a).state).toBe("valid");
  },
);
