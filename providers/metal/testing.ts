/**
 * Test support for the metal provider's tests: Service and Node builders with tweaks, and pools written in the
 * kube-vip format for brevity. Not imported by the provider itself.
 */
import { expect } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import { AddressBook } from "./address-book.ts";
import { type AllocationPlan, planAllocation } from "./allocator.ts";
import { familyWants, readRequest } from "./annotations.ts";
import { parseKubeVipConfigMap } from "./kube-vip-format.ts";
import type { PoolSet } from "./pools.ts";
import { holderOf } from "./rebuild.ts";

export interface ServiceTweaks {
  readonly namespace?: string;
  readonly uid?: string;
  /** `[protocol, port]` pairs; default one TCP/80. `[]` for a Service without ports. */
  readonly ports?: readonly (readonly [string, number])[];
  readonly policy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  readonly families?: readonly ("IPv4" | "IPv6")[];
  readonly loadBalancerIP?: string;
  readonly annotations?: Record<string, string>;
  readonly type?: string;
  readonly loadBalancerClass?: string;
  readonly finalizers?: string[];
  readonly ingress?: readonly string[];
  readonly created?: string;
}

export function service(name: string, t: ServiceTweaks = {}): Service {
  const namespace = t.namespace ?? "default";
  return {
    metadata: {
      name,
      namespace,
      uid: t.uid ?? `uid-${namespace}-${name}`,
      ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
      ...(t.finalizers ? { finalizers: [...t.finalizers] } : {}),
      ...(t.created ? { creationTimestamp: t.created } : {}),
    },
    spec: {
      type: t.type ?? "LoadBalancer",
      ports: (t.ports ?? [["TCP", 80]]).map(([protocol, port]) => ({ protocol, port })),
      ...(t.policy ? { ipFamilyPolicy: t.policy } : {}),
      ...(t.families ? { ipFamilies: [...t.families] } : {}),
      ...(t.loadBalancerIP ? { loadBalancerIP: t.loadBalancerIP } : {}),
      ...(t.loadBalancerClass !== undefined ? { loadBalancerClass: t.loadBalancerClass } : {}),
    },
    ...(t.ingress ? { status: { loadBalancer: { ingress: t.ingress.map((ip) => ({ ip })) } } } : {}),
  };
}

/** Pools in the kube-vip ConfigMap format. */
export function kubeVipPools(data: Record<string, string>): PoolSet {
  const parsed = parseKubeVipConfigMap(data, "test pools");
  if (parsed.problems.length > 0) throw new Error(parsed.problems.join("\n"));
  return parsed.set;
}

/** Plans for `svc` and, when it succeeds, holds the result in `book` (what `ensureLoadBalancer` does in memory). */
export function allocate(book: AddressBook, pools: PoolSet, svc: Service): AllocationPlan {
  const holder = holderOf(svc);
  const current = book.allocationOf(holder.key);
  const plan = planAllocation(book, pools, {
    holder,
    wants: familyWants(svc),
    request: readRequest(svc, current?.ips),
  });
  if (plan.ok) book.set(holder, plan.ips);
  return plan;
}

/** The addresses, or the refusal's message. */
export const outcome = (plan: AllocationPlan): readonly string[] | string => (plan.ok ? plan.ips : plan.message);

export function node(
  name: string,
  t: {
    providerID?: string;
    addresses?: [string, string][];
    labels?: Record<string, string>;
    ready?: boolean;
    annotations?: Record<string, string>;
  } = {},
): Node {
  return {
    metadata: {
      name,
      ...(t.labels ? { labels: { ...t.labels } } : {}),
      ...(t.annotations ? { annotations: { ...t.annotations } } : {}),
    },
    spec: t.providerID ? { providerID: t.providerID } : {},
    status: {
      ...(t.addresses ? { addresses: t.addresses.map(([type, address]) => ({ type, address })) } : {}),
      ...(t.ready !== undefined ? { conditions: [{ type: "Ready", status: t.ready ? "True" : "False" }] } : {}),
    },
  };
}

/** One step of an allocation scenario: allocate for a Service and expect addresses or a refusal, or release one. */
export type Step = { readonly svc: Service; readonly want: readonly string[] | RegExp } | { readonly release: string };

export interface Scenario {
  readonly name: string;
  /** kube-vip format. */
  readonly pools: Record<string, string>;
  readonly steps: readonly Step[];
}

/** Runs the steps against one fresh book, labelling each expectation with its step. */
export function runScenario(s: Scenario): void {
  const book = new AddressBook();
  const pools = kubeVipPools(s.pools);
  for (const [i, step] of s.steps.entries()) {
    if ("release" in step) {
      book.release(step.release);
      continue;
    }
    const got = outcome(allocate(book, pools, step.svc));
    const label = `step ${i} (${step.svc.metadata?.namespace}/${step.svc.metadata?.name})`;
    if (step.want instanceof RegExp) expect({ label, got }).toEqual({ label, got: expect.stringMatching(step.want) });
    else expect({ label, got }).toEqual({ label, got: step.want });
  }
}
