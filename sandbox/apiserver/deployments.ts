/**
 * apps/v1 Deployments: the defaults the real server fills in and a subset of its validation (the selector, the
 * template's labels and containers, replicas). No controller acts on them here: no ReplicaSets or Pods are made.
 */
import { duplicate, type FieldError, invalid, notSupported, required } from "./field-errors.ts";
import { deepEqual, isObject, type JsonObject, type Obj, str, stringMap } from "./json.ts";
import { dns1123Label } from "./names.ts";
import { selectorString } from "./scale.ts";
import { parseLabelSelector } from "./selectors.ts";

const child = (parent: JsonObject, key: string): JsonObject => {
  if (!isObject(parent[key])) parent[key] = {};
  return parent[key] as JsonObject;
};

const imagePullPolicy = (image: string): string => {
  const last = image.split("/").pop() ?? "";
  if (image.includes("@")) return "IfNotPresent";
  const tag = last.includes(":") ? last.slice(last.lastIndexOf(":") + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
};

/** apps/v1 and core/v1 defaulting as clients see it on a created Deployment. */
export const defaultDeployment = (d: Obj): void => {
  const spec = child(d, "spec");
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  const strategy = child(spec, "strategy");
  strategy.type ??= "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    const rolling = child(strategy, "rollingUpdate");
    rolling.maxUnavailable ??= "25%";
    rolling.maxSurge ??= "25%";
  }
  const template = child(spec, "template");
  // Go's zero Time is JSON null and the template's is never set: the real server always answers it so, and
  // `kubectl apply` compares with it.
  child(template, "metadata").creationTimestamp ??= null;
  const pod = child(template, "spec");
  pod.restartPolicy ??= "Always";
  pod.terminationGracePeriodSeconds ??= 30;
  pod.dnsPolicy ??= "ClusterFirst";
  pod.securityContext ??= {};
  pod.schedulerName ??= "default-scheduler";
  for (const c of Array.isArray(pod.containers) ? pod.containers : []) {
    if (!isObject(c)) continue;
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    c.imagePullPolicy ??= imagePullPolicy(str(c.image) ?? "");
    for (const p of Array.isArray(c.ports) ? c.ports : []) if (isObject(p)) p.protocol ??= "TCP";
  }
};

const validateContainers = (containers: unknown): FieldError[] => {
  const path = "spec.template.spec.containers";
  if (!Array.isArray(containers) || containers.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const o = isObject(c) ? c : {};
    const name = str(o.name) ?? "";
    if (!name) errs.push(required(`${path}[${i}].name`));
    else {
      for (const e of dns1123Label(name)) errs.push(invalid(`${path}[${i}].name`, name, e));
      if (names.has(name)) errs.push(duplicate(`${path}[${i}].name`, name));
      names.add(name);
    }
    if (!str(o.image)) errs.push(required(`${path}[${i}].image`));
  });
  return errs;
};

export const validateDeployment = (d: Obj, old: Obj | undefined): FieldError[] => {
  const errs: FieldError[] = [];
  const spec = isObject(d.spec) ? d.spec : {};
  const replicas = spec.replicas;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    errs.push(invalid("spec.replicas", replicas ?? null, "must be greater than or equal to 0"));
  }
  const selector = selectorString(spec.selector);
  if (!isObject(spec.selector)) errs.push(required("spec.selector"));
  else if (!selector) errs.push(invalid("spec.selector", spec.selector, "empty selector is invalid for deployment"));
  const template = isObject(spec.template) ? spec.template : {};
  const labels = stringMap(isObject(template.metadata) ? template.metadata.labels : undefined);
  const matches = selector ? parseLabelSelector(selector) : undefined;
  if (matches && !matches({ metadata: { labels } })) {
    errs.push(invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"));
  }
  const pod = isObject(template.spec) ? template.spec : {};
  errs.push(...validateContainers(pod.containers));
  if (pod.restartPolicy !== "Always") {
    errs.push(notSupported("spec.template.spec.restartPolicy", pod.restartPolicy, ["Always"]));
  }
  const oldSelector = old && isObject(old.spec) ? old.spec.selector : undefined;
  if (old && !deepEqual(oldSelector, spec.selector)) {
    errs.push(invalid("spec.selector", spec.selector ?? null, "field is immutable"));
  }
  return errs;
};
