/**
 * The Kubernetes permissions the manager needs, read from the one list of every API call it makes:
 * deploy/kubernetes/api-calls.json (verb, group, resource, who makes it, why). The ClusterRole is tested against
 * that list, and `doctor` checks it with SelfSubjectAccessReview — so the two cannot disagree. When code starts
 * calling something new, add it there (the RBAC test finds unlisted calls in the source and says so).
 */
import calls from "../deploy/kubernetes/api-calls.json" with { type: "json" };
import type { ControllerName } from "./names.ts";

/** One verb on one resource (or non-resource URL), as an authorizer sees a request. */
export interface Access {
  readonly verb: string;
  /** `""` for the core group. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Only in this namespace; absent = cluster-wide. */
  readonly namespace?: string;
  /** Only this object; absent = any. */
  readonly name?: string;
  /** Why it is needed, for `doctor`'s advice. */
  readonly why: string;
}

interface Call {
  readonly verb: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly nonResourceURL?: string;
  readonly by: readonly string[];
  readonly why: string;
  /** Granted to every user by this built-in ClusterRole. */
  readonly defaultRole?: string;
}

export const API_CALLS: readonly Call[] = calls.calls as readonly Call[];

/**
 * The resource permissions the enabled controllers and the manager need (events, leader election when on,
 * secure serving's reviews). Built-in grants (`defaultRole`) and non-resource URLs are left out: every identity
 * has them.
 */
export function requiredAccess(
  controllers: readonly ControllerName[],
  leader: { readonly enabled: boolean; readonly namespace: string; readonly name: string },
): Access[] {
  const who = new Set<string>([...controllers, "manager", "events", "secure-serving"]);
  if (leader.enabled) who.add("leader-election");
  const out: Access[] = [];
  for (const c of API_CALLS) {
    if (c.nonResourceURL || c.defaultRole || c.resource === undefined) continue;
    if (!c.by.some((b) => who.has(b))) continue;
    const leaseCall = c.by.includes("leader-election");
    const namespace = leaseCall ? leader.namespace : c.namespace;
    const name = leaseCall && c.name ? leader.name : c.name === "*" ? undefined : c.name;
    out.push({
      verb: c.verb,
      group: c.group ?? "",
      resource: c.resource,
      ...(c.subresource ? { subresource: c.subresource } : {}),
      ...(namespace ? { namespace } : {}),
      ...(name ? { name } : {}),
      why: c.why,
    });
  }
  return out;
}
