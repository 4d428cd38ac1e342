/**
 * What the informer caches keep of each object: a keep-list per kind, written as data. Everything not listed is
 * dropped before an object is cached, including fields a newer Kubernetes adds (a kubelet's `status.images` alone
 * is most of a Node's bytes, and no controller reads it).
 *
 * The contract that makes this safe: a cached object is read, never written back whole. Every write built from a
 * cached object sends only the fields it changes (a merge or strategic patch, with `metadata.resourceVersion` as
 * the precondition where the change replaces a list); a write that needs the whole object reads it from the server
 * first. A new reader of a field adds the field here (naming itself), or, in a provider, asks its shared informer
 * for it (`ProviderInformers.nodes({ keep: [...] })`).
 */
import type { ResourceRef } from "./client-types.ts";
import type { ConfigMap, KubeObject, Node, Secret, Service } from "./objects.ts";

type Depth = [never, 0, 1, 2, 3, 4, 5];

/**
 * A dotted path to a field of `T`, e.g. `status.nodeInfo.kubeletVersion`. Lists are walked through: the rest of
 * the path applies to each element (`status.conditions.type`). A path keeps the whole value it ends at.
 */
export type FieldPath<T, D extends number = 5> = [D] extends [never]
  ? never
  : T extends readonly (infer E)[]
    ? FieldPath<E, D>
    : T extends object
      ? {
          [K in keyof T & string]-?: string extends K
            ? never
            : K | (NonNullable<T[K]> extends object ? `${K}.${FieldPath<NonNullable<T[K]>, Depth[D]>}` : never);
        }[keyof T & string]
      : never;

/** The fields every kind keeps: identity, optimistic concurrency, and what the controllers' predicates read. */
const IDENTITY = [
  // every controller's queue key and log lines; events' involvedObject (platform/events.ts)
  "metadata.name",
  "metadata.uid",
  // the informer's replay check (kube/informer.ts), events' involvedObject, write preconditions
  "metadata.resourceVersion",
] as const;

/** A namespaced kind's identity: its queue and cache key is `namespace/name`. */
const NAMESPACED = [...IDENTITY, "metadata.namespace"] as const;

/**
 * Node: what the node, node-lifecycle, route and service controllers, `plan`, the sandbox's progress lines and the
 * providers (they get the cached Node in `instanceExists`, `instanceMetadata`, `ensureLoadBalancer`) read.
 */
export const NODE_FIELDS: readonly FieldPath<Node>[] = [
  ...IDENTITY,
  // service controller: a node being deleted leaves the stable set (controllers/service/predicates.ts)
  "metadata.deletionTimestamp",
  // node controller (beta/GA label reconciliation, zone and instance-type labels), service controller
  // (exclude-from-external-load-balancers, node selection), providers (hcloud, proxmox, metal)
  "metadata.labels",
  // node controller, metal, proxmox: alpha.kubernetes.io/provided-node-ip (controllers/node/plan.ts); kept whole
  // (annotation keys hold dots, which a field path cannot name)
  "metadata.annotations",
  // everyone: which instance the Node is (node, node-lifecycle, route, service controllers, every provider)
  "spec.providerID",
  // node controller (the uninitialized taint; the merge patch replaces the list whole), node-lifecycle (shutdown
  // taint), service controller (ToBeDeletedByClusterAutoscaler), sandbox progress
  "spec.taints",
  // route controller: the routes to make (controllers/route/plan.ts), sandbox progress; `spec.podCIDR` is its
  // first element and no one reads it
  "spec.podCIDRs",
  // node controller (address refresh compares them), route controller (route target), load-balancer providers
  "status.addresses",
  // node-lifecycle and service controllers read Ready, the route controller NetworkUnavailable and its reason,
  // metal's instances Ready; messages and timestamps are not read
  "status.conditions.type",
  "status.conditions.status",
  "status.conditions.reason",
  // proxmox: a Node without a provider ID is found by its SMBIOS UUID (providers/proxmox/find.ts)
  "status.nodeInfo.systemUUID",
];

/**
 * Service: the service controller and the load-balancer providers, which get the cached Service in
 * `ensureLoadBalancer`/`updateLoadBalancer`. A Service's `spec` is what a load balancer is built from (ports,
 * class, IP families, traffic policy, source ranges, requested IP, …): it is kept whole, as Services are few
 * and small. What goes is `managedFields`, `status.conditions`, labels and metadata no one reads.
 */
export const SERVICE_FIELDS: readonly FieldPath<Service>[] = [
  ...NAMESPACED,
  // metal: the older claim wins an address conflict (providers/metal/rebuild.ts)
  "metadata.creationTimestamp",
  // service controller: a deleted Service is cleaned up (controllers/service/predicates.ts)
  "metadata.deletionTimestamp",
  // service controller: the load-balancer cleanup finalizer; the patch is computed against this list
  "metadata.finalizers",
  // load-balancer providers' annotations (hcloud, metal, sandbox); service controller: annotation changes resync
  "metadata.annotations",
  // service controller (type, class, ports, traffic policy: what needs a load-balancer update), every
  // load-balancer provider (what the load balancer is built from)
  "spec",
  // service controller: the ingress it wrote (its patch is computed against it), sandbox progress, plan
  "status.loadBalancer",
];

/**
 * ConfigMaps a provider watches (metal's inventory and pools): their data. Labels and annotations stay: these are
 * single objects a provider selected by name, and `configMaps()` takes no extra fields.
 */
export const CONFIG_MAP_FIELDS: readonly FieldPath<ConfigMap>[] = [
  ...NAMESPACED,
  "metadata.labels",
  "metadata.annotations",
  "data",
  "binaryData",
];

/** Secrets a provider watches: their data and type; labels and annotations as for ConfigMaps. */
export const SECRET_FIELDS: readonly FieldPath<Secret>[] = [
  ...NAMESPACED,
  "metadata.labels",
  "metadata.annotations",
  "type",
  "data",
];

/** The keep-list of each kind the manager caches, by `group/plural`; other kinds lose `managedFields` only. */
const KEEP: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ["/nodes", NODE_FIELDS],
  ["/services", SERVICE_FIELDS],
  ["/configmaps", CONFIG_MAP_FIELDS],
  ["/secrets", SECRET_FIELDS],
]);

/** The default keep-list for `ref`, or `undefined` when its objects are cached whole (less `managedFields`). */
export function keptFields(ref: Pick<ResourceRef, "group" | "plural">): readonly string[] | undefined {
  return KEEP.get(`${ref.group}/${ref.plural}`);
}

/** A compiled keep-list: `true` keeps the whole value. */
type KeepTree = true | ReadonlyMap<string, KeepTree>;

function compile(paths: readonly string[]): KeepTree {
  const root = new Map<string, KeepTree>();
  for (const path of paths) {
    const parts = path.split(".");
    if (parts.some((p) => p === "")) {
      throw new Error(`keep-list path "${path}" is not a dotted field path such as "status.nodeInfo.systemUUID"`);
    }
    let node = root;
    for (const [i, part] of parts.entries()) {
      const existing = node.get(part);
      if (existing === true) break; // a parent is kept whole already
      if (i === parts.length - 1) {
        node.set(part, true);
        break;
      }
      const next = existing ?? new Map<string, KeepTree>();
      node.set(part, next);
      node = next as Map<string, KeepTree>;
    }
  }
  return root;
}

function pick(value: unknown, tree: KeepTree): unknown {
  if (tree === true || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => pick(v, tree));
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = pick(v, sub);
  }
  return out;
}

/** A transform that keeps only `paths` (and everything under each) of an object. */
export function keepOnly<T extends KubeObject>(paths: readonly string[]): (obj: T) => T {
  const tree = compile(paths);
  return (obj) => pick(obj, tree) as T;
}

/** The paths of `wanted` that `kept` does not keep (neither the path itself nor one of its parents). */
export function uncovered(kept: readonly string[], wanted: readonly string[]): string[] {
  const missing: string[] = [];
  for (const path of wanted) {
    if (!kept.some((k) => path === k || path.startsWith(`${k}.`))) missing.push(path);
  }
  return missing;
}
