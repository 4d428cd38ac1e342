/**
 * `planLoadBalancer` for the sandbox cloud: one read (the load balancer by name) and a field-by-field comparison with
 * the spec `ensureLoadBalancer` would PUT. The sandbox cloud has no adoption: a load balancer of this name is this
 * Service's (the name is the Service's UID), so the answer is `create`, `update` or `none`.
 */
import type { LoadBalancerPlan } from "../cloud.ts";
import type { LoadBalancerSpec, SandboxLoadBalancer } from "./api/client.ts";

/** The plan for putting `spec` where `current` (or nothing) is; `status` is what the PUT would answer. */
export function previewSandboxLoadBalancer(
  name: string,
  current: SandboxLoadBalancer | undefined,
  spec: LoadBalancerSpec,
  status: (lb: SandboxLoadBalancer) => LoadBalancerPlan["status"],
): LoadBalancerPlan {
  if (!current) {
    const ports = spec.ports.map((p) => `${p.port}/${p.protocol}→${p.nodePort}`).join(", ");
    return {
      action: "create",
      name,
      changes: [`create with ports ${ports || "none"} on nodes ${spec.nodes.join(", ") || "none"}`],
    };
  }
  const changes = specChanges(current, spec);
  return { action: changes.length === 0 ? "none" : "update", name, changes, status: status(current) };
}

/** One phrase per field of `spec` that differs from `current`. */
export function specChanges(current: LoadBalancerSpec, spec: LoadBalancerSpec): string[] {
  const changes: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (current.cluster !== spec.cluster) changes.push(`cluster ${current.cluster} → ${spec.cluster}`);
  if (current.serviceUID !== spec.serviceUID) changes.push(`service UID ${current.serviceUID} → ${spec.serviceUID}`);
  const portsOf = (s: LoadBalancerSpec) => s.ports.map((p) => `${p.port}/${p.protocol}→${p.nodePort}`).join(", ");
  if (portsOf(current) !== portsOf(spec)) changes.push(`ports [${portsOf(current)}] → [${portsOf(spec)}]`);
  const had = new Set(current.nodes);
  const wanted = new Set(spec.nodes);
  for (const n of spec.nodes) if (!had.has(n)) changes.push(`add node ${n}`);
  for (const n of current.nodes) if (!wanted.has(n)) changes.push(`remove node ${n}`);
  if (spec.options && !same(current.options, spec.options)) {
    for (const key of Object.keys(spec.options) as (keyof typeof spec.options)[]) {
      if (!same(current.options?.[key], spec.options[key])) {
        changes.push(`${key} ${JSON.stringify(current.options?.[key])} → ${JSON.stringify(spec.options[key])}`);
      }
    }
  }
  return changes;
}
