/**
 * The Kubernetes permissions each part of the manager needs: what its code calls, by verb and resource. The
 * `doctor` command checks them with SelfSubjectAccessReview; deploy/kubernetes' ClusterRole is tested against them.
 * When a controller starts calling something new, add it here (the RBAC test then tells you to grant it).
 */
import type { ControllerName } from "./names.ts";

export interface Permission {
  /** `""` for the core group. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verbs: readonly string[];
  /** Only in this namespace (and only this object, when `name` is set); absent = cluster-wide. */
  readonly namespace?: string;
  readonly name?: string;
  /** Why it is needed, for `doctor`'s advice. */
  readonly why: string;
}

const events: Permission[] = [
  { group: "", resource: "events", verbs: ["create", "patch"], why: "record events on nodes and services" },
];

export const CONTROLLER_PERMISSIONS: Readonly<Record<ControllerName, readonly Permission[]>> = {
  "cloud-node-controller": [
    { group: "", resource: "nodes", verbs: ["get", "list", "watch", "update", "patch"], why: "initialise nodes" },
    { group: "", resource: "nodes", subresource: "status", verbs: ["patch"], why: "write node addresses" },
    ...events,
  ],
  "cloud-node-lifecycle-controller": [
    { group: "", resource: "nodes", verbs: ["get", "list", "watch", "patch", "delete"], why: "taint or delete nodes" },
    ...events,
  ],
  "service-lb-controller": [
    { group: "", resource: "services", verbs: ["get", "list", "watch"], why: "find LoadBalancer Services" },
    {
      group: "",
      resource: "services",
      subresource: "status",
      verbs: ["patch"],
      why: "write load-balancer status and the cleanup finalizer",
    },
    { group: "", resource: "nodes", verbs: ["list", "watch"], why: "know the load balancers' backend nodes" },
    ...events,
  ],
  "node-route-controller": [
    { group: "", resource: "nodes", verbs: ["list", "watch"], why: "know the nodes' pod CIDRs" },
    { group: "", resource: "nodes", subresource: "status", verbs: ["patch"], why: "set NetworkUnavailable" },
    ...events,
  ],
};

/** What the manager itself needs besides its controllers. */
export function managerPermissions(leader: { enabled: boolean; namespace: string; name: string }): Permission[] {
  const out: Permission[] = [
    {
      group: "authentication.k8s.io",
      resource: "tokenreviews",
      verbs: ["create"],
      why: "authenticate /metrics scrapers",
    },
    {
      group: "authorization.k8s.io",
      resource: "subjectaccessreviews",
      verbs: ["create"],
      why: "authorise /metrics scrapers",
    },
  ];
  if (leader.enabled) {
    out.push(
      {
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: ["create"],
        namespace: leader.namespace,
        why: "create the leader-election lease",
      },
      {
        group: "coordination.k8s.io",
        resource: "leases",
        verbs: ["get", "update"],
        namespace: leader.namespace,
        name: leader.name,
        why: "hold the leader-election lease",
      },
    );
  }
  return out;
}

/** Every (verb, resource) pair the enabled controllers and the manager need, one entry per verb. */
export function requiredAccess(
  controllers: readonly ControllerName[],
  leader: { enabled: boolean; namespace: string; name: string },
): (Omit<Permission, "verbs"> & { verb: string })[] {
  const all = [...controllers.flatMap((c) => CONTROLLER_PERMISSIONS[c]), ...managerPermissions(leader)];
  const seen = new Set<string>();
  const out: (Omit<Permission, "verbs"> & { verb: string })[] = [];
  for (const { verbs, ...p } of all) {
    for (const verb of verbs) {
      const key = [p.group, p.resource, p.subresource, p.namespace, p.name, verb].join("|");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...p, verb });
    }
  }
  return out;
}
