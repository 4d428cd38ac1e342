import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { Service } from "../../kube/objects.ts";
import { formatCIDR } from "../../net/cidr.ts";
import { describeProblem, InvalidAnnotationsError, readAnnotation } from "../kit/annotations/declare.ts";
import { HcloudAnnotations, HcloudReservedAnnotations, hcloudAnnotations } from "./annotations.ts";
import { hcloudConfigSchema, readHcloudConfig } from "./config.ts";

const svc = (annotations: Record<string, string> = {}): Service => ({
  metadata: { name: "web", namespace: "default", uid: "u-1", annotations },
  spec: { ports: [{ name: "http", port: 80, protocol: "TCP" }] },
});

const all = [...HcloudAnnotations.list, ...HcloudReservedAnnotations.list];
const k = (name: string) => `load-balancer.hetzner.cloud/${name}`;

/** A value each annotation refuses, and why that is worth refusing. */
const INVALID: Record<string, string> = {
  [k("name")]: "my lb", // a space: the API refuses the name
  [k("type")]: "LB 11",
  [k("location")]: "fsn_1",
  [k("network-zone")]: "eu central",
  [k("algorithm-type")]: "random",
  [k("protocol")]: "udp",
  [k("uses-proxyprotocol")]: "yes",
  [k("http-sticky-sessions")]: "on",
  [k("http-cookie-name")]: "my cookie",
  [k("http-cookie-lifetime")]: "1500ms",
  [k("http-timeout-idle")]: "10s",
  [k("http-redirect-http")]: "2",
  [k("certificate-type")]: "letsencrypt",
  [k("http-certificates")]: "1234,0",
  [k("http-managed-certificate-name")]: "",
  [k("http-managed-certificate-domains")]: "example.com,exa mple.org",
  [k("http-managed-certificate-acme-staging")]: "maybe",
  [k("health-check-protocol")]: "grpc",
  [k("health-check-port")]: "70000",
  [k("health-check-interval")]: "fast",
  [k("health-check-timeout")]: "0s",
  [k("health-check-retries")]: "-1",
  [k("health-check-http-domain")]: "http://example.com",
  [k("health-check-http-path")]: "healthz",
  [k("health-check-http-validate-certificate")]: "y",
  [k("http-status-codes")]: "2??,OK",
  [k("ipv6-disabled")]: "no",
  [k("ipv4-rdns")]: "lb example com",
  [k("ipv6-rdns")]: "-lb.example.com",
  [k("disable-public-network")]: "off",
  [k("disable-private-ingress")]: "none",
  [k("use-private-ip")]: "private",
  [k("private-ipv4")]: "fd00::5",
  [k("private-subnet-ip-range")]: "10.0.1.0",
  [k("node-selector")]: "role in ()",
  [k("hostname")]: "lb..example.com",
  [k("ipv4")]: "2001:db8::1",
  [k("ipv6")]: "203.0.113.10",
  [k("id")]: "abc",
};

const defaultsFrom = (env: Record<string, string>) =>
  v.parse(hcloudConfigSchema, { HCLOUD_TOKEN: "-", ...env }).loadBalancers;

describe("the hcloud provider's annotations", () => {
  test("declare every key of hccm's annotation package, once", () => {
    expect(all.length).toBe(39);
    expect(new Set(all.map((a) => a.key)).size).toBe(39);
    expect(Object.keys(INVALID).sort()).toEqual(all.map((a) => a.key).sort());
  });

  test.each(all.map((a) => [a.key, a] as const))("%s: the documented example reads", (_, a) => {
    expect(readAnnotation(svc({ [a.key]: a.example }), a).state).toBe("valid");
  });

  test.each(all.map((a) => [a.key, a] as const))("%s: a wrong value is named with the annotation", (key, a) => {
    const read = readAnnotation(svc({ [key]: INVALID[key] ?? "" }), a);
    expect(read.state).toBe("invalid");
    if (read.state !== "invalid") return;
    const message = describeProblem(read.problem);
    expect(message).toStartWith(`${key}=${JSON.stringify(INVALID[key])}: `);
    expect(message).toContain("expected ");
  });

  test("a Service with several wrong values gets one error naming each", () => {
    const service = svc({ [k("protocol")]: "udp", [k("health-check-port")]: "x", [k("ipv4")]: "junk" });
    const error = (() => {
      try {
        HcloudAnnotations.parse(service);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidAnnotationsError);
    expect((error as InvalidAnnotationsError).problems.map((p) => p.key)).toEqual([
      k("protocol"),
      k("health-check-port"),
    ]);
  });

  test("without annotations or settings, hccm's defaults: tcp, lb11, uploaded certificates, everything else the API's", () => {
    const values = HcloudAnnotations.parse(svc());
    expect(values).toMatchObject({ protocol: "tcp", type: "lb11", certificateType: "uploaded", proxyProtocol: false });
    expect(values).toMatchObject({ ipv6Disabled: false, disablePrivateIngress: false, usePrivateIP: false });
    for (const unset of ["location", "networkZone", "algorithm", "disablePublicNetwork", "healthCheckInterval"]) {
      expect(values[unset as keyof typeof values]).toBeUndefined();
    }
  });

  test("the HCLOUD_LOAD_BALANCERS_* settings are the defaults, and an annotation wins over them", () => {
    const set = hcloudAnnotations(
      defaultsFrom({
        HCLOUD_LOAD_BALANCERS_TYPE: "lb21",
        HCLOUD_LOAD_BALANCERS_LOCATION: "nbg1",
        HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE: "least_connections",
        HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL: "true",
        HCLOUD_LOAD_BALANCERS_DISABLE_IPV6: "true",
        HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS: "true",
        HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK: "false",
        HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP: "true",
        HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE: "10.0.1.0/24",
        HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL: "5s",
        HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT: "3s",
        HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES: "2",
      }),
    );
    const values = set.parse(svc());
    expect(values).toMatchObject({
      type: "lb21",
      location: "nbg1",
      algorithm: "least_connections",
      proxyProtocol: true,
      ipv6Disabled: true,
      disablePrivateIngress: true,
      disablePublicNetwork: false,
      usePrivateIP: true,
      healthCheckInterval: 5000,
      healthCheckTimeout: 3000,
      healthCheckRetries: 2,
    });
    expect(values.privateSubnet && formatCIDR(values.privateSubnet)).toBe("10.0.1.0/24");
    const overridden = set.parse(svc({ [k("type")]: "lb31", [k("location")]: "", [k("uses-proxyprotocol")]: "false" }));
    expect(overridden).toMatchObject({ type: "lb31", location: "", proxyProtocol: false });
  });

  test.each([
    ["HTTP", "http"],
    ["Https", "https"],
  ])("protocols are read in any case, as hccm lowercases them: %s", (text, value) => {
    expect(HcloudAnnotations.parse(svc({ [k("protocol")]: text })).protocol).toBe(value as "http");
  });

  test.each([
    ["15s", 15_000],
    ["1m", 60_000],
    ["15", 15_000],
    ["1m30s", 90_000],
  ])("a health check interval of %s is %d ms (Go durations, and hccm's documented bare seconds)", (text, ms) => {
    expect(HcloudAnnotations.parse(svc({ [k("health-check-interval")]: text })).healthCheckInterval).toBe(ms);
  });

  test.each([
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL",
      "health-check-interval",
      "healthCheckInterval",
      ["999999999h", "0s", "1500ms", "3601"],
      ["1", "15s", "1h"],
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT",
      "health-check-timeout",
      "healthCheckTimeout",
      ["0", "61m", "soon"],
      ["1s", "10", "60m"],
    ],
    [
      "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES",
      "health-check-retries",
      "healthCheckRetries",
      ["0", "6", "99", "-1"],
      ["1", "3", "5"],
    ],
  ] as const)("%s and the %s annotation take the same values", async (variable, name, field, refused, taken) => {
    const read = (env: Record<string, string>) =>
      readHcloudConfig({
        env: { HCLOUD_TOKEN: "t", ...env },
        config: undefined,
        configSource: undefined,
        readFile: async () => "",
      });
    for (const text of refused) {
      expect(readAnnotation(svc({ [k(name)]: text }), HcloudAnnotations.declared[field]).state).toBe("invalid");
      const err = await read({ [variable]: text }).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(err).toContain(
        `${variable}: is ${JSON.stringify(text)}; must be ${HcloudAnnotations.declared[field].reader.accepts}`,
      );
    }
    for (const text of taken) {
      const annotated = HcloudAnnotations.parse(svc({ [k(name)]: text }))[field];
      const { config } = await read({ [variable]: text });
      expect(hcloudAnnotations(config.loadBalancers).parse(svc({}))[field]).toBe(annotated);
    }
  });

  test("certificates are named by ID or by name", () => {
    const values = HcloudAnnotations.parse(svc({ [k("http-certificates")]: "1234, wildcard ,5" }));
    expect(values.certificates).toEqual([{ id: 1234 }, { name: "wildcard" }, { id: 5 }]);
  });

  test.each([
    ["", { role: "x" }, true],
    ["role=lb", { role: "lb" }, true],
    ["role=lb", { role: "web" }, false],
    ["role!=lb", {}, true],
    ["zone in (fsn1,nbg1),!spot", { zone: "nbg1" }, true],
    ["zone in (fsn1,nbg1),!spot", { zone: "nbg1", spot: "" }, false],
    ["zone notin (fsn1)", { zone: "hel1" }, true],
    ["node-role.kubernetes.io/lb", { "node-role.kubernetes.io/lb": "" }, true],
    ["gen>2", { gen: "3" }, true],
    ["gen<2", { gen: "x" }, false],
  ])("node-selector %j on %j selects: %p", (selector, labels, selected) => {
    const values = HcloudAnnotations.parse(svc({ [k("node-selector")]: selector }));
    expect(values.nodeSelector?.matches(labels)).toBe(selected);
  });

  test("a bad node selector says which requirement is wrong", () => {
    const read = readAnnotation(
      svc({ [k("node-selector")]: "role=lb,Bad Key=1" }),
      HcloudAnnotations.declared.nodeSelector,
    );
    expect(read.state === "invalid" && read.problem.reason).toContain('"Bad Key=1" is not a requirement');
  });
});
