/**
 * DO CCM's annotations: every key it reads is declared once, every example reads, and the readers tell "not set"
 * from "invalid" the way DO CCM does (an empty choice is not set) but refuse what DO CCM would send on to fail.
 */
import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { type Annotation, readAnnotation } from "../kit/annotations/declare.ts";
import { annotationPrefix as A, DigitalOceanAnnotations, DigitalOceanIDAnnotations } from "./annotations.ts";

const svc = (annotations: Record<string, string>): Service => ({
  metadata: { name: "web", namespace: "default", uid: "u", annotations },
  spec: {
    ports: [
      { port: 80, nodePort: 30080, protocol: "TCP" },
      { port: 53, nodePort: 30053, protocol: "UDP" },
    ],
  },
});

const declared = DigitalOceanAnnotations.declared;

describe("digitalocean annotations", () => {
  test("declares the 37 keys DO CCM reads, and its ID annotation apart", () => {
    expect(DigitalOceanAnnotations.list).toHaveLength(37);
    const keys = DigitalOceanAnnotations.list.map((a) => a.key);
    expect(keys.filter((k) => !k.startsWith(A))).toEqual(["service.kubernetes.io/do-loadbalancer-disown"]);
    expect(DigitalOceanIDAnnotations.list.map((a) => a.key)).toEqual(["kubernetes.digitalocean.com/load-balancer-id"]);
  });

  test.each([...DigitalOceanAnnotations.list, ...DigitalOceanIDAnnotations.list].map((a) => [a.key, a] as const))(
    "the example of %s reads",
    (_key, a) => {
      expect(readAnnotation(svc({ [a.key]: a.example }), a).state).toBe("valid");
    },
  );

  const cases: readonly (readonly [string, keyof typeof declared, string, "unset" | "invalid" | unknown])[] = [
    ["an absent key is not set", "type", "", "unset"],
    ["an empty type is not set, as in DO CCM", "type", "", undefined],
    ["an unknown type is invalid", "type", "GLOBAL", "invalid"],
    ["a size unit past 100 is invalid", "sizeUnit", "101", "invalid"],
    ["a health check interval under 3 is invalid", "healthCheckInterval", "2", "invalid"],
    ["booleans read as Go's ParseBool", "proxyProtocol", "T", true],
    ["a health check port must be a TCP port of the Service", "healthCheckPort", "53", "invalid"],
    ["a health check port not on the Service is invalid", "healthCheckPort", "8080", "invalid"],
    [
      "firewall rules are normalised",
      "denyRules",
      " cidr:10.1.2.3/8 ,ip:192.0.2.1",
      ["cidr:10.0.0.0/8", "ip:192.0.2.1"],
    ],
    ["a firewall rule of another kind is invalid", "allowRules", "tag:web", "invalid"],
    ["override-health-check counts by its presence", "overrideHealthCheck", "", true],
    ["port lists read as numbers", "tlsPorts", "443, 8443", [443, 8443]],
    ["an unknown algorithm is invalid (DO CCM would quietly use round_robin)", "algorithm", "random", "invalid"],
  ];

  test.each(cases)("%s", (name, field, value, want) => {
    const a = declared[field] as Annotation<unknown, unknown>;
    const read = readAnnotation(svc(name.startsWith("an absent") ? {} : { [a.key]: value }), a);
    if (want === "unset" || want === "invalid") expect(read.state).toBe(want);
    else expect(read).toMatchObject({ state: "valid", value: want });
  });

  test("every invalid annotation of a Service is named in one error", () => {
    const bad = svc({ [`${A}type`]: "x", [`${A}size-slug`]: "huge", [`${A}enable-proxy-protocol`]: "yes" });
    const message = (() => {
      try {
        DigitalOceanAnnotations.parse(bad);
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).toStartWith("3 invalid annotations: ");
    for (const part of ['type="x"', 'size-slug="huge"', 'enable-proxy-protocol="yes"']) {
      expect(message).toContain(`do-loadbalancer-${part}`);
    }
  });
});
