/**
 * `spec.loadBalancerSourceRanges` as a frontend's access list, the way scw CCM writes it (scaleway/acl.go
 * `makeACLSpecs`): allow rules of at most 60 entries each — the Nodes' addresses (so health checks and in-cluster
 * traffic pass) and the ranges, `/32` and `/128` written as bare addresses — then one rule denying everything else.
 * Rules are named `<frontend id>-lb-source-range-<n>` and `…-end`; without ranges the list is empty. Pure.
 */
import type { Node, Service } from "../../../kube/objects.ts";
import { tryParseCIDR } from "../../../net/cidr.ts";
import type { AclSpec } from "../api/lb-schemas.ts";

export const MAX_ENTRIES_PER_ACL = 60;

export const aclPrefix = (frontendId: string) => `${frontendId}-lb-source-range`;

/** What the allow rules list: empty when the Service sets no source range (then the frontend has no ACL). */
export function aclAllowList(service: Service, nodes: readonly Node[], warnings: string[]): string[] {
  const ranges = service.spec?.loadBalancerSourceRanges ?? [];
  if (ranges.length === 0) return [];
  const good: string[] = [];
  for (const r of ranges) {
    if (!tryParseCIDR(r)) warnings.push(`spec.loadBalancerSourceRanges: ${r} is not a CIDR and is left out`);
    else good.push(r.includes(":") ? r.replace(/\/128$/, "") : r.replace(/\/32$/, ""));
  }
  const addresses = nodes.flatMap((n) =>
    (n.status?.addresses ?? []).filter((a) => a.type === "InternalIP" || a.type === "ExternalIP").map((a) => a.address),
  );
  return [...addresses, ...good].sort();
}

export function aclSpecs(frontendId: string, allow: readonly string[]): AclSpec[] {
  if (allow.length === 0) return [];
  const prefix = aclPrefix(frontendId);
  const rules: AclSpec[] = [];
  for (let i = 0; i * MAX_ENTRIES_PER_ACL < allow.length; i++) {
    const ipSubnet = allow.slice(i * MAX_ENTRIES_PER_ACL, (i + 1) * MAX_ENTRIES_PER_ACL);
    rules.push({ name: `${prefix}-${i}`, index: i, action: "allow", ipSubnet });
  }
  rules.push({ name: `${prefix}-end`, index: rules.length, action: "deny", ipSubnet: ["0.0.0.0/0", "::/0"] });
  return rules;
}

export function aclsEqual(got: readonly AclSpec[], want: readonly AclSpec[]): boolean {
  if (got.length !== want.length) return false;
  const sorted = [...got].sort((a, b) => a.index - b.index);
  return want.every((w, i) => {
    const g = sorted[i];
    return (
      g !== undefined &&
      g.name === w.name &&
      g.index === w.index &&
      g.action === w.action &&
      g.ipSubnet.length === w.ipSubnet.length &&
      g.ipSubnet.every((x, j) => x === w.ipSubnet[j])
    );
  });
}
