import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { InvalidAnnotationsError, readAnnotation } from "../kit/annotations/declare.ts";
import { certificatesForPort, valueForPort } from "./annotation-readers.ts";
import { annotationKey as k, ScalewayAnnotations } from "./annotations.ts";

const svc = (annotations: Record<string, string> = {}): Service => ({
  metadata: { name: "web", namespace: "default", uid: "u-1", annotations },
  spec: {
    ports: [
      { name: "http", port: 80, protocol: "TCP", nodePort: 30080 },
      { name: "https", port: 443, protocol: "TCP", nodePort: 30443 },
    ],
  },
});

const ID = "11111111-2222-3333-4444-555555555555";

/** A value each annotation refuses: what scw CCM would fail on, or pass to the API to be refused. */
const INVALID: Record<string, string> = {
  [k("id")]: "my-lb",
  [k("forward-port-algorithm")]: "random",
  [k("sticky-sessions")]: "ip",
  [k("sticky-sessions-cookie-name")]: "my cookie",
  [k("health-check-type")]: "80:grpc",
  [k("health-check-delay")]: "5",
  [k("health-check-send-proxy")]: "yes",
  [k("health-transient-check-delay")]: "fast",
  [k("health-check-timeout")]: "0s",
  [k("health-check-max-retries")]: "-1",
  [k("health-check-http-uri")]: "http://example.com/",
  [k("health-check-http-method")]: "FETCH",
  [k("health-check-http-code")]: "80:OK",
  [k("health-check-mysql-user")]: "80:a:b",
  [k("health-check-pgsql-user")]: "post gres",
  [k("send-proxy-v2")]: "http",
  [k("proxy-protocol-v1")]: "80,99999",
  [k("proxy-protocol-v2")]: "all",
  [k("type")]: "lb s",
  [k("zone")]: "paris",
  [k("connection-rate-limit")]: "-5",
  [k("enable-access-logs")]: "on",
  [k("enable-http3")]: "2",
  [k("ssl-compatibility-level")]: "modern",
  [k("timeout-client")]: "10 minutes",
  [k("timeout-server")]: "-1s",
  [k("timeout-connect")]: "1d",
  [k("timeout-tunnel")]: "x",
  [k("timeout-queue")]: "0s",
  [k("on-marked-down-action")]: "none",
  [k("force-internal-ip")]: "internal",
  [k("use-hostname")]: "hostname",
  [k("protocol-http")]: "http",
  [k("http-backend-tls")]: "tls",
  [k("http-backend-tls-skip-verify")]: "yes",
  [k("certificate-ids")]: "my-cert",
  [k("target-node-labels")]: "=worker",
  [k("redispatch-attempt-count")]: "one",
  [k("max-connections")]: "1e3",
  [k("max-retries")]: "3.5",
  [k("failover-host")]: "https://bucket",
  [k("private")]: "public",
  [k("externally-managed")]: "maybe",
  [k("ip-ids")]: "51.15.0.1",
  [k("private-ip-ids")]: `${ID},10.0.0.1`,
  [k("ip-mode")]: "proxy",
  [k("pn-ids")]: "pn-1",
  [k("flexible-ip-types")]: "ipv6",
  [k("health-check-from-service")]: "yes",
};

describe("scw CCM's annotations", () => {
  test("all 49 keys scw CCM reads are declared, none more", () => {
    expect(ScalewayAnnotations.list.map((a) => a.key).sort()).toEqual(Object.keys(INVALID).sort());
    expect(ScalewayAnnotations.list).toHaveLength(49);
  });

  describe.each(ScalewayAnnotations.list.map((a) => [a.key, a] as const))("%s", (key, declared) => {
    test("its documented example reads as set", () => {
      const read = readAnnotation(svc({ [key]: declared.example }), declared);
      expect(read.state).toBe("valid");
    });
    test("not set reads as unset, giving the default", () => {
      expect(readAnnotation(svc(), declared).state).toBe("unset");
      expect((ScalewayAnnotations.read(svc()).values as Record<string, unknown>)[nameOf(key)]).toEqual(
        declared.default,
      );
    });
    test("a bad value is a problem naming the key and value", () => {
      const value = INVALID[key] ?? "";
      const read = readAnnotation(svc({ [key]: value }), declared);
      expect(read.state).toBe("invalid");
      if (read.state === "invalid") expect(read.problem).toMatchObject({ key, value });
    });
  });

  test("every bad annotation is named in one error", () => {
    const bad = { [k("zone")]: "paris", [k("private")]: "public" };
    expect(() => ScalewayAnnotations.parse(svc(bad))).toThrow(InvalidAnnotationsError);
    try {
      ScalewayAnnotations.parse(svc(bad));
    } catch (err) {
      expect((err as InvalidAnnotationsError).problems.map((p) => p.key)).toEqual([k("zone"), k("private")]);
    }
  });
});

describe("per-port values", () => {
  test.each([
    ["http", 80, "http"],
    ["80:http;443,8443:https", 443, "https"],
    ["80:http;443,8443:https", 80, "http"],
    ["tcp;443:https", 80, "tcp"],
    ["tcp;443:https", 443, "https"],
    ["*:http", 443, "http"],
  ])("%s gives port %d %s", (text, port, want) => {
    const values = ScalewayAnnotations.parse(svc({ [k("health-check-type")]: text }));
    expect(values.healthCheckType && valueForPort(values.healthCheckType, port)).toBe(want as never);
  });

  test("certificates for every port add to a port's own", () => {
    const other = "99999999-2222-3333-4444-555555555555";
    const values = ScalewayAnnotations.parse(svc({ [k("certificate-ids")]: `fr-par-1/${ID};443:${other}` }));
    const chosen = values.certificateIds ?? { all: [], parts: [] };
    expect(certificatesForPort(chosen, 443)).toEqual([ID, other]);
    expect(certificatesForPort(chosen, 80)).toEqual([ID]);
  });

  test("an IPv4 is always booked", () => {
    expect(ScalewayAnnotations.parse(svc({ [k("flexible-ip-types")]: "IPv4, ipv6" })).flexibleIpTypes).toEqual({
      ipv4: true,
      ipv6: true,
    });
  });
});

function nameOf(key: string): string {
  const found = Object.entries(ScalewayAnnotations.declared).find(([, a]) => a.key === key);
  return found?.[0] ?? "";
}
