/**
 * The resources the emulator serves: one row per API resource, read by discovery, routing, the store, field
 * selectors and deletion. Per-kind behaviour that needs code (validation, defaulting, table columns, merge keys,
 * time fields) lives in its own module, keyed by the same `id`.
 */
import { getPath, type Obj } from "./json.ts";

export type FieldReader = (obj: Obj) => string;

export interface ResourceDef {
  /** `core/nodes`, `events.k8s.io/events`: the key every per-kind table uses. */
  readonly id: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly verbs: readonly string[];
  readonly categories: readonly string[];
  /** Collection the objects live in: events.k8s.io/v1 events are a view of core/v1 events, as in the real server. */
  readonly storage: string;
  readonly statusSubresource: boolean;
  /** Serves `<plural>/scale` (autoscaling/v1 Scale over `spec.replicas`), what `kubectl scale` writes. */
  readonly scaleSubresource: boolean;
  /** Field selector labels beyond `metadata.name` and `metadata.namespace`, read from the stored object. */
  readonly fields: Readonly<Record<string, FieldReader>>;
  /** DELETE answers with the object (else with a `Status` of `Success`), as each real registry does. */
  readonly returnDeletedObject: boolean;
  /** PUT of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** Create-only review APIs: answered, never stored. */
  readonly review: boolean;
}

const crud = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"] as const;

const text =
  (path: string): FieldReader =>
  (obj) => {
    const v = getPath(obj, path);
    return v === undefined || v === null ? "" : String(v);
  };

const involvedFields = (prefix: string): Record<string, FieldReader> => {
  const out: Record<string, FieldReader> = {};
  for (const f of ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"]) {
    out[`${prefix}.${f}`] = text(`involvedObject.${f}`);
  }
  return out;
};

interface DefInput extends Partial<Omit<ResourceDef, "id" | "group" | "version" | "plural" | "kind">> {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const def = (d: DefInput): ResourceDef => {
  const id = `${d.group || "core"}/${d.plural}`;
  return {
    id,
    singular: d.kind.toLowerCase(),
    shortNames: [],
    verbs: crud,
    categories: [],
    storage: id,
    statusSubresource: false,
    scaleSubresource: false,
    fields: {},
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    review: false,
    ...d,
  };
};

export const RESOURCES: readonly ResourceDef[] = [
  def({
    group: "",
    version: "v1",
    plural: "namespaces",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
    statusSubresource: true,
    fields: { "status.phase": text("status.phase") },
    returnDeletedObject: true,
  }),
  def({
    group: "",
    version: "v1",
    plural: "nodes",
    kind: "Node",
    namespaced: false,
    shortNames: ["no"],
    statusSubresource: true,
    fields: { "spec.unschedulable": (o) => String(getPath(o, "spec.unschedulable") === true) },
  }),
  def({
    group: "",
    version: "v1",
    plural: "services",
    kind: "Service",
    namespaced: true,
    shortNames: ["svc"],
    categories: ["all"],
    statusSubresource: true,
    fields: { "spec.clusterIP": text("spec.clusterIP"), "spec.type": text("spec.type") },
    returnDeletedObject: true,
  }),
  def({
    group: "",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
    shortNames: ["ev"],
    fields: {
      ...involvedFields("involvedObject"),
      reason: text("reason"),
      reportingComponent: text("reportingComponent"),
      source: text("source.component"),
      type: text("type"),
    },
    allowCreateOnUpdate: true,
  }),
  def({ group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true, shortNames: ["cm"] }),
  def({
    group: "",
    version: "v1",
    plural: "secrets",
    kind: "Secret",
    namespaced: true,
    fields: { type: text("type") },
  }),
  // Pods exist so that `kubectl describe node` (which lists the node's pods) works; they get no behaviour.
  def({
    group: "",
    version: "v1",
    plural: "pods",
    kind: "Pod",
    namespaced: true,
    shortNames: ["po"],
    categories: ["all"],
    statusSubresource: true,
    fields: {
      "spec.nodeName": text("spec.nodeName"),
      "spec.restartPolicy": text("spec.restartPolicy"),
      "spec.schedulerName": text("spec.schedulerName"),
      "spec.serviceAccountName": text("spec.serviceAccountName"),
      "spec.hostNetwork": (o) => String(getPath(o, "spec.hostNetwork") === true),
      "status.phase": text("status.phase"),
      "status.podIP": text("status.podIP"),
      "status.nominatedNodeName": text("status.nominatedNodeName"),
    },
    returnDeletedObject: true,
  }),
  // Deployments are stored, listed, watched and scaled, so `kubectl create deployment`, `expose deployment` and
  // `scale` work; no controller acts on them (no ReplicaSets, no Pods): their status stays as written.
  def({
    group: "apps",
    version: "v1",
    plural: "deployments",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
    statusSubresource: true,
    scaleSubresource: true,
  }),
  def({ group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true }),
  def({
    group: "events.k8s.io",
    version: "v1",
    plural: "events",
    kind: "Event",
    namespaced: true,
    // The real server gives this resource the short name `ev` too; kubectl 1.32 then warns on every `get ev`
    // that it "could also match" this one. Leaving it out keeps `kubectl get ev` (core events) quiet.
    storage: "core/events",
    fields: {
      ...involvedFields("regarding"),
      reason: text("reason"),
      reportingController: text("reportingComponent"),
      type: text("type"),
    },
    allowCreateOnUpdate: true,
  }),
  def({
    group: "authentication.k8s.io",
    version: "v1",
    plural: "tokenreviews",
    kind: "TokenReview",
    namespaced: false,
    verbs: ["create"],
    review: true,
  }),
  def({
    group: "authentication.k8s.io",
    version: "v1",
    plural: "selfsubjectreviews",
    kind: "SelfSubjectReview",
    namespaced: false,
    verbs: ["create"],
    review: true,
  }),
  def({
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectaccessreviews",
    kind: "SelfSubjectAccessReview",
    namespaced: false,
    verbs: ["create"],
    review: true,
  }),
  def({
    group: "authorization.k8s.io",
    version: "v1",
    plural: "subjectaccessreviews",
    kind: "SubjectAccessReview",
    namespaced: false,
    verbs: ["create"],
    review: true,
  }),
];

const byKey = new Map(RESOURCES.map((d) => [`${d.group}/${d.version}/${d.plural}`, d]));
const byGroupPlural = new Map(RESOURCES.map((d) => [`${d.group}/${d.plural}`, d]));

/** The resource at `group/version/plural`, as a URL names it. */
export const findResource = (group: string, version: string, plural: string): ResourceDef | undefined =>
  byKey.get(`${group}/${version}/${plural}`);

/** A `ResourceRef` (kube/client-types.ts) or any `{group, plural}` to its definition; throws for an unknown one. */
export const resolveResource = (ref: { readonly group: string; readonly plural: string }): ResourceDef => {
  const d = byGroupPlural.get(`${ref.group}/${ref.plural}`);
  if (!d) throw new Error(`sandbox apiserver: unknown resource ${ref.group || "core"}/${ref.plural}`);
  return d;
};

/** The API groups and versions, in discovery order (the core group first). */
export const groupVersions = (): { group: string; version: string; resources: ResourceDef[] }[] => {
  const out = new Map<string, { group: string; version: string; resources: ResourceDef[] }>();
  for (const d of RESOURCES) {
    const key = `${d.group}/${d.version}`;
    let gv = out.get(key);
    if (!gv) {
      gv = { group: d.group, version: d.version, resources: [] };
      out.set(key, gv);
    }
    gv.resources.push(d);
  }
  return [...out.values()];
};
