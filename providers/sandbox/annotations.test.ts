import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { readAnnotation } from "../kit/annotations/declare.ts";
import { loadBalancerOptions, SandboxAnnotations } from "./annotations.ts";

const svc = (annotations: Record<string, string> = {}): Service => ({
  metadata: { name: "web", namespace: "default", annotations },
  spec: {
    ports: [
      { name: "http", port: 80, protocol: "TCP" },
      { name: "https", port: 443, protocol: "TCP" },
    ],
  },
});

describe("the sandbox provider's annotations", () => {
  test.each(SandboxAnnotations.list.map((a) => [a.key, a] as const))("%s: the documented example reads", (_, a) => {
    expect(readAnnotation(svc({ [a.key]: a.example }), a).state).toBe("valid");
  });

  test("a Service without any gets the cloud's defaults", () => {
    expect(loadBalancerOptions(SandboxAnnotations.parse(svc()))).toEqual({
      algorithm: "round-robin",
      healthCheck: { intervalMs: 15_000, retries: 3 },
      proxyProtocol: false,
      allowedCIDRs: [],
      portProtocols: {},
    });
  });

  test("per-port protocols go by port number, whether the annotation named the port or its number", () => {
    const values = SandboxAnnotations.parse(svc({ "sandbox.ccm.dev/load-balancer-protocols": "http=http, 443=https" }));
    expect(loadBalancerOptions(values).portProtocols).toEqual({ "80": "http", "443": "https" });
  });
});
