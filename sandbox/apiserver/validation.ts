/**
 * Validation per resource, on the object as the client sent it (after defaulting). A subset of the real rules,
 * chosen for what clients of this project can get wrong: names and labels, taints, service ports and types, lease
 * durations, event fields, config keys. Findings become a `422 Invalid` with `details.causes`.
 */
import { validateDeployment } from "./deployments.ts";
import {
  duplicate,
  type FieldError,
  forbiddenField,
  invalid,
  notSupported,
  required,
  tooLong,
} from "./field-errors.ts";
import { isObject, type JsonObject, type Obj, str } from "./json.ts";
import {
  configMapKey,
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  ianaServiceName,
  labelValue,
  pathSegmentName,
  qualifiedName,
} from "./names.ts";
import type { ResourceDef } from "./resources.ts";

const nameRules: Record<string, (v: string) => string[]> = {
  "core/namespaces": dns1123Label,
  "core/services": dns1035Label,
  "core/events": pathSegmentName,
  "events.k8s.io/events": pathSegmentName,
};

const each = (v: unknown): [number, JsonObject][] =>
  Array.isArray(v) ? v.map((x, i) => [i, isObject(x) ? x : {}] as [number, JsonObject]) : [];

const validateMeta = (def: ResourceDef, meta: JsonObject): FieldError[] => {
  const errs: FieldError[] = [];
  const name = str(meta.name) ?? "";
  if (!name) errs.push(required("metadata.name", "name or generateName is required"));
  else for (const e of (nameRules[def.id] ?? dns1123Subdomain)(name)) errs.push(invalid("metadata.name", name, e));
  for (const [field, valueCheck] of [
    ["labels", labelValue],
    ["annotations", undefined],
  ] as const) {
    const map = meta[field];
    if (map === undefined || map === null) continue;
    if (!isObject(map)) {
      errs.push(invalid(`metadata.${field}`, map, "must be a map of strings"));
      continue;
    }
    let size = 0;
    for (const [k, v] of Object.entries(map)) {
      for (const e of qualifiedName(k)) errs.push(invalid(`metadata.${field}`, k, e));
      if (typeof v !== "string") errs.push(invalid(`metadata.${field}`, v, "must be a string"));
      else if (valueCheck) for (const e of valueCheck(v)) errs.push(invalid(`metadata.${field}`, v, e));
      size += k.length + (typeof v === "string" ? v.length : 0);
    }
    if (field === "annotations" && size > 256 * 1024) errs.push(tooLong("metadata.annotations", 256 * 1024));
  }
  for (const [i, f] of (Array.isArray(meta.finalizers) ? meta.finalizers : []).entries()) {
    const errsF = typeof f === "string" ? qualifiedName(f) : ["must be a string"];
    for (const e of errsF) errs.push(invalid(`metadata.finalizers[${i}]`, f, e));
  }
  return errs;
};

const TAINT_EFFECTS = ["NoExecute", "NoSchedule", "PreferNoSchedule"];

const validateNode = (obj: Obj): FieldError[] => {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, t] of each((obj.spec as JsonObject | undefined)?.taints)) {
    const f = `spec.taints[${i}]`;
    const key = str(t.key) ?? "";
    if (!key) errs.push(required(`${f}.key`));
    else for (const e of qualifiedName(key)) errs.push(invalid(`${f}.key`, key, e));
    if (t.value !== undefined)
      for (const e of labelValue(String(t.value))) errs.push(invalid(`${f}.value`, t.value, e));
    const effect = str(t.effect) ?? "";
    if (!effect) errs.push(required(`${f}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(`${f}.effect`, effect, TAINT_EFFECTS));
    const pair = `${key}\u0000${effect}`;
    if (seen.has(pair)) errs.push(duplicate(f, { key, effect }));
    seen.add(pair);
  }
  return errs;
};

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];

const validPort = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

const validateService = (obj: Obj, old: Obj | undefined): FieldError[] => {
  const errs: FieldError[] = [];
  const spec = isObject(obj.spec) ? obj.spec : {};
  const type = str(spec.type) ?? "ClusterIP";
  if (!SERVICE_TYPES.includes(type)) errs.push(notSupported("spec.type", type, SERVICE_TYPES));
  const ports = each(spec.ports);
  const headless = spec.clusterIP === "None";
  if (ports.length === 0 && type !== "ExternalName" && !headless) errs.push(required("spec.ports"));
  if (type === "ExternalName" && !str(spec.externalName)) errs.push(required("spec.externalName"));
  const names = new Set<string>();
  const keys = new Set<string>();
  for (const [i, p] of ports) {
    const f = `spec.ports[${i}]`;
    const name = str(p.name) ?? "";
    if (ports.length > 1 && !name) errs.push(required(`${f}.name`));
    if (name) {
      for (const e of dns1123Label(name)) errs.push(invalid(`${f}.name`, name, e));
      if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
      names.add(name);
    }
    if (!validPort(p.port)) errs.push(invalid(`${f}.port`, p.port ?? 0, "must be between 1 and 65535, inclusive"));
    const protocol = str(p.protocol) ?? "TCP";
    if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(`${f}.protocol`, protocol, PROTOCOLS));
    const key = `${String(p.port)}/${protocol}`;
    if (keys.has(key)) errs.push(duplicate(f, { port: p.port, protocol }));
    keys.add(key);
    const target = p.targetPort;
    if (typeof target === "number" && !validPort(target)) {
      errs.push(invalid(`${f}.targetPort`, target, "must be between 1 and 65535, inclusive"));
    } else if (typeof target === "string") {
      for (const e of ianaServiceName(target)) errs.push(invalid(`${f}.targetPort`, target, e));
    }
    if (p.nodePort !== undefined && p.nodePort !== 0 && (type === "ClusterIP" || type === "ExternalName")) {
      errs.push(forbiddenField(`${f}.nodePort`, `may not be used when \`type\` is '${type}'`));
    }
  }
  const oldIP = old && isObject(old.spec) ? str(old.spec.clusterIP) : undefined;
  const newIP = str(spec.clusterIP);
  if (oldIP && newIP && oldIP !== newIP && type !== "ExternalName") {
    errs.push(invalid("spec.clusterIPs[0]", [newIP], "may not change once set"));
  }
  return errs;
};

const validateLease = (obj: Obj): FieldError[] => {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const d = spec.leaseDurationSeconds;
  if (d !== undefined && d !== null && !(Number.isInteger(d) && (d as number) > 0)) {
    errs.push(invalid("spec.leaseDurationSeconds", d, "must be greater than 0"));
  }
  const t = spec.leaseTransitions;
  if (t !== undefined && t !== null && !(Number.isInteger(t) && (t as number) >= 0)) {
    errs.push(invalid("spec.leaseTransitions", t, "must be greater than or equal to 0"));
  }
  return errs;
};

/** An event's namespace must be its object's (or `default`/empty for a cluster-scoped object). */
const eventNamespace = (obj: Obj, refField: string): FieldError[] => {
  const ref = isObject(obj[refField]) ? (obj[refField] as JsonObject) : {};
  const refNs = str(ref.namespace) ?? "";
  const ns = str(obj.metadata?.namespace) ?? "";
  const ok = refNs === "" ? ns === "" || ns === "default" : ns === refNs;
  return ok ? [] : [invalid(`${refField}.namespace`, refNs, "does not match event.namespace")];
};

const validateEventsV1 = (obj: Obj): FieldError[] => {
  const errs = eventNamespace(obj, "regarding");
  if (!obj.eventTime) errs.push(required("eventTime"));
  for (const f of ["reportingController", "reportingInstance", "action", "reason"]) {
    if (!str(obj[f])) errs.push(required(f));
  }
  const type = str(obj.type) ?? "";
  if (!["Normal", "Warning"].includes(type)) errs.push(notSupported("type", type, ["Normal", "Warning"]));
  if ((str(obj.note) ?? "").length > 1024) errs.push(tooLong("note", 1024));
  return errs;
};

const validateDataKeys = (obj: Obj, fields: readonly string[]): FieldError[] => {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const field of fields) {
    const map = obj[field];
    if (!isObject(map)) continue;
    for (const k of Object.keys(map)) {
      for (const e of configMapKey(k)) errs.push(invalid(field, k, e));
      if (seen.has(k)) errs.push(invalid(field, k, "duplicate of key present in another data field"));
      seen.add(k);
    }
  }
  return errs;
};

const byResource: Record<string, (obj: Obj, old: Obj | undefined) => FieldError[]> = {
  "core/nodes": validateNode,
  "core/services": validateService,
  "coordination.k8s.io/leases": validateLease,
  "core/events": (o) => eventNamespace(o, "involvedObject"),
  "events.k8s.io/events": validateEventsV1,
  "core/configmaps": (o) => validateDataKeys(o, ["data", "binaryData"]),
  "core/secrets": (o) => validateDataKeys(o, ["data"]),
  "apps/deployments": validateDeployment,
};

/** All findings for `obj` (as the client addressed it: events.k8s.io events in their own form). */
export const validate = (def: ResourceDef, obj: Obj, old?: Obj): FieldError[] => [
  ...validateMeta(def, isObject(obj.metadata) ? obj.metadata : {}),
  ...(byResource[def.id]?.(obj, old) ?? []),
];
