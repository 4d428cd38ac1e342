/**
 * The one table of strategic-merge list strategies, from the struct tags of kubernetes/api core/v1/types.go and
 * apimachinery's ObjectMeta (checked against kubernetes/api at 10b39a3, July 2026).
 *
 * A path is the dotted field path with list elements stepped over (`spec.ports`, not `spec.ports[0]`). Lists not
 * named here are atomic: a strategic patch replaces them whole. That includes, on purpose:
 * - `Node.spec.taints` (`+listType=atomic`, no patchStrategy): `kubectl taint` sends the whole new list;
 * - `Service.status.loadBalancer.ingress` and its `ports` (`+listType=atomic`);
 * - `Node.status.images`, `volumesInUse`, `volumesAttached`; `Service.spec.clusterIPs`, `ipFamilies`,
 *   `externalIPs`; `Namespace.spec.finalizers` (all atomic).
 * `Service.spec.ports` merges by `port` alone (the tag's patchMergeKey), although server-side apply keys it by
 * port and protocol.
 */

export interface ListStrategy {
  /** Key field of list elements (maps); absent for a merged list of primitives (a set). */
  readonly mergeKey?: string;
}

export type MergeKeyTable = Readonly<Record<string, ListStrategy>>;

const objectMeta: MergeKeyTable = {
  "metadata.finalizers": {},
  "metadata.ownerReferences": { mergeKey: "uid" },
};

const container: MergeKeyTable = {
  ports: { mergeKey: "containerPort" },
  env: { mergeKey: "name" },
  volumeMounts: { mergeKey: "mountPath" },
  volumeDevices: { mergeKey: "devicePath" },
};

const prefixed = (prefix: string, t: MergeKeyTable): MergeKeyTable =>
  Object.fromEntries(Object.entries(t).map(([k, v]) => [`${prefix}.${k}`, v]));

const podSpec: MergeKeyTable = {
  containers: { mergeKey: "name" },
  initContainers: { mergeKey: "name" },
  ephemeralContainers: { mergeKey: "name" },
  ...prefixed("containers", container),
  ...prefixed("initContainers", container),
  volumes: { mergeKey: "name" },
  imagePullSecrets: { mergeKey: "name" },
  hostAliases: { mergeKey: "ip" },
};

/** Per kind (the storage form: core/v1 for events), on top of the ObjectMeta strategies every kind has. */
const byKind: Readonly<Record<string, MergeKeyTable>> = {
  Node: {
    "spec.podCIDRs": {},
    "status.conditions": { mergeKey: "type" },
    "status.addresses": { mergeKey: "type" },
  },
  Service: {
    "spec.ports": { mergeKey: "port" },
    "status.conditions": { mergeKey: "type" },
  },
  Namespace: {
    "status.conditions": { mergeKey: "type" },
  },
  Pod: {
    ...prefixed("spec", podSpec),
    "status.conditions": { mergeKey: "type" },
    "status.podIPs": { mergeKey: "ip" },
  },
  // apps/v1 types.go: the pod template's lists as in a Pod; conditions by type.
  Deployment: {
    ...prefixed("spec.template.spec", podSpec),
    "spec.template.metadata.finalizers": {},
    "spec.template.metadata.ownerReferences": { mergeKey: "uid" },
    "status.conditions": { mergeKey: "type" },
  },
};

const tables: Readonly<Record<string, MergeKeyTable>> = Object.fromEntries(
  Object.entries(byKind).map(([kind, t]) => [kind, { ...objectMeta, ...t }]),
);

/** The list strategies of `kind` (a lookup by path; missing ⇒ atomic). */
export const mergeKeysFor = (kind: string): MergeKeyTable => tables[kind] ?? objectMeta;
