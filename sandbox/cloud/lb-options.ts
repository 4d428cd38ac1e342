/**
 * A load balancer's options in the simulated cloud: how it balances and checks backends, who may connect, what each
 * port speaks. Like a real cloud it fills a default for everything left out and refuses combinations it cannot
 * serve (a protocol for a port it does not have, HTTP on a UDP port).
 */
import * as v from "valibot";
import { isCIDR } from "./address-pool.ts";
import type { LoadBalancerOptions, LoadBalancerPort } from "./types.ts";

export const algorithms = ["round-robin", "least-connections", "source-ip"] as const;
export const portProtocols = ["tcp", "http", "https"] as const;

export const defaultOptions: LoadBalancerOptions = {
  algorithm: "round-robin",
  healthCheck: { intervalMs: 15_000, retries: 3 },
  proxyProtocol: false,
  allowedCIDRs: [],
  portProtocols: {},
};

/** The `options` of a PUT body: every field optional, bounds as documented in docs/sandbox.md. */
export const optionsSchema = v.strictObject({
  algorithm: v.exactOptional(v.picklist(algorithms)),
  healthCheck: v.exactOptional(
    v.strictObject({
      intervalMs: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(1000), v.maxValue(300_000))),
      retries: v.exactOptional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10))),
    }),
  ),
  proxyProtocol: v.exactOptional(v.boolean()),
  allowedCIDRs: v.exactOptional(v.array(v.pipe(v.string(), v.check(isCIDR, "not an IPv4 or IPv6 CIDR")))),
  portProtocols: v.exactOptional(
    v.record(v.pipe(v.string(), v.regex(/^\d+$/, "keys are port numbers")), v.picklist(portProtocols)),
  ),
});

export type OptionsSpec = v.InferOutput<typeof optionsSchema>;

/** The options with a default for each field left out. */
export function withDefaults(spec: OptionsSpec | undefined): LoadBalancerOptions {
  return {
    algorithm: spec?.algorithm ?? defaultOptions.algorithm,
    healthCheck: { ...defaultOptions.healthCheck, ...spec?.healthCheck },
    proxyProtocol: spec?.proxyProtocol ?? defaultOptions.proxyProtocol,
    allowedCIDRs: [...(spec?.allowedCIDRs ?? [])],
    portProtocols: { ...spec?.portProtocols },
  };
}

/** What the options ask that the ports cannot give, as `options.<field>: problem`. */
export function optionProblems(ports: readonly LoadBalancerPort[], options: LoadBalancerOptions): string[] {
  const problems: string[] = [];
  for (const [key, protocol] of Object.entries(options.portProtocols)) {
    const port = ports.filter((p) => p.port === Number(key));
    if (port.length === 0) problems.push(`options.portProtocols.${key}: the load balancer has no port ${key}`);
    else if (protocol !== "tcp" && !port.some((p) => p.protocol === "TCP")) {
      problems.push(`options.portProtocols.${key}: ${protocol} needs a TCP port`);
    }
  }
  return problems;
}
