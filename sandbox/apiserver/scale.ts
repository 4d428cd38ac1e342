/**
 * The `scale` subresource: an autoscaling/v1 `Scale` view of a workload's `spec.replicas`, as `kubectl scale`
 * reads and writes it. The view's selector is the workload's label selector in its string form.
 */
import { invalid, invalidError } from "./field-errors.ts";
import { clone, isObject, type JsonObject, type Obj, str, stringMap } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { badRequest } from "./status-errors.ts";

/** A LabelSelector (`matchLabels`, `matchExpressions`) in the string form `kubectl get -l` takes. */
export const selectorString = (selector: unknown): string => {
  if (!isObject(selector)) return "";
  const parts = Object.entries(stringMap(selector.matchLabels)).map(([k, v]) => `${k}=${v}`);
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (!isObject(e)) continue;
    const values = Array.isArray(e.values) ? e.values.join(",") : "";
    const key = str(e.key) ?? "";
    if (e.operator === "In") parts.push(`${key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(key);
    else if (e.operator === "DoesNotExist") parts.push(`!${key}`);
  }
  return parts.join(",");
};

const spec = (obj: Obj): JsonObject => (isObject(obj.spec) ? obj.spec : {});

/** The Scale of a stored workload. */
export const scaleOf = (obj: Obj): Obj => {
  const meta = obj.metadata ?? {};
  const status = isObject(obj.status) ? obj.status : {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof spec(obj).replicas === "number" ? spec(obj).replicas : 0 },
    status: {
      replicas: typeof status.replicas === "number" ? status.replicas : 0,
      selector: selectorString(spec(obj).selector),
    },
  };
};

/**
 * The workload `stored` with the replicas of `scale` (a client's Scale body), to update through the store; its
 * resourceVersion is the Scale's when given, so a stale Scale conflicts as a stale object would.
 */
export const scaled = (def: ResourceDef, stored: Obj, scale: Obj): Obj => {
  if (scale.kind !== undefined && scale.kind !== "Scale") {
    throw badRequest(`${String(scale.kind)} in version "v1" cannot be handled as a Scale`);
  }
  const name = str(stored.metadata?.name) ?? "";
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    const detail = "must be greater than or equal to 0";
    throw invalidError("autoscaling", "Scale", name, [invalid("spec.replicas", replicas ?? null, detail)]);
  }
  const next = clone(stored);
  next.spec = { ...spec(stored), replicas };
  const rv = str(scale.metadata?.resourceVersion);
  next.metadata = { ...next.metadata, resourceVersion: rv || stored.metadata?.resourceVersion };
  if (def.statusSubresource) delete next.status;
  return next;
};
