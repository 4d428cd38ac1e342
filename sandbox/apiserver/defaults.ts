/**
 * Server-side defaulting that clients observe: service types, protocols and target ports, namespace phase and
 * finalizer, secret type and `stringData`. Runs on an owned (not yet stored) object, before validation.
 * Allocation of cluster IPs and node ports is stateful and lives in service-allocator.ts.
 */
import { defaultDeployment } from "./deployments.ts";
import { isObject, type JsonObject, type Obj, str } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { badRequest } from "./status-errors.ts";

const obj = (parent: JsonObject, key: string): JsonObject => {
  if (!isObject(parent[key])) parent[key] = {};
  return parent[key] as JsonObject;
};

export const needsNodePorts = (type: unknown): boolean => type === "NodePort" || type === "LoadBalancer";

const defaultService = (svc: Obj, old: Obj | undefined): void => {
  const spec = obj(svc, "spec");
  spec.type ??= "ClusterIP";
  const type = spec.type;
  if (Array.isArray(spec.ports)) {
    for (const p of spec.ports) {
      if (!isObject(p)) continue;
      p.protocol ??= "TCP";
      if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
      if (!needsNodePorts(type)) delete p.nodePort;
    }
  }
  spec.sessionAffinity ??= "None";
  if (type !== "ExternalName") {
    spec.internalTrafficPolicy ??= "Cluster";
    spec.ipFamilies ??= ["IPv4"];
    spec.ipFamilyPolicy ??= "SingleStack";
  }
  if (needsNodePorts(type)) spec.externalTrafficPolicy ??= "Cluster";
  else delete spec.externalTrafficPolicy;
  if (type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
  if (type !== "LoadBalancer" || spec.externalTrafficPolicy !== "Local") delete spec.healthCheckNodePort;
  if (!old) svc.status = { loadBalancer: {} };
};

const defaultNamespace = (ns: Obj, old: Obj | undefined): void => {
  const meta = obj(ns, "metadata");
  obj(meta, "labels")["kubernetes.io/metadata.name"] = str(meta.name) ?? "";
  if (!old) {
    const spec = obj(ns, "spec");
    spec.finalizers ??= ["kubernetes"];
    obj(ns, "status").phase ??= "Active";
  }
};

const defaultSecret = (secret: Obj): void => {
  secret.type ??= "Opaque";
  if (isObject(secret.stringData)) {
    const data = obj(secret, "data");
    for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v)).toString("base64");
  }
  delete secret.stringData;
  if (isObject(secret.data)) {
    for (const [k, v] of Object.entries(secret.data)) {
      if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
        throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data[${k}]`);
      }
    }
  }
};

const defaultPod = (pod: Obj, old: Obj | undefined): void => {
  if (!old) obj(pod, "status").phase ??= "Pending";
};

const byResource: Record<string, (o: Obj, old: Obj | undefined) => void> = {
  "core/services": defaultService,
  "core/namespaces": defaultNamespace,
  "core/secrets": defaultSecret,
  "core/pods": defaultPod,
  "apps/deployments": defaultDeployment,
};

/** Fills in what the real server defaults; `old` is the stored object on update (undefined on create). */
export const applyDefaults = (def: ResourceDef, o: Obj, old?: Obj): void => byResource[def.id]?.(o, old);
