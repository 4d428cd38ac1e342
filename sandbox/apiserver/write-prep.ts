/**
 * Turning a client's body into the object to store: server-owned metadata, the status subresource split,
 * defaulting, time normalisation and validation. Works on objects the caller owns (never on stored ones) and in
 * the form the client addressed (events.k8s.io events in their own shape).
 */
import { applyDefaults } from "./defaults.ts";
import { type FieldError, forbiddenField, invalidError } from "./field-errors.ts";
import { clone, deepEqual, isObject, type JsonObject, metaOf, type Obj, str } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { badRequest } from "./status-errors.ts";
import { formatTime, normalizeTimes } from "./times.ts";
import { validate } from "./validation.ts";

export interface WriteContext {
  readonly now: () => number;
  readonly uid: () => string;
  /** Five characters for `generateName`. */
  readonly suffix: () => string;
}

export const apiVersionOf = (def: ResourceDef): string => (def.group ? `${def.group}/${def.version}` : def.version);

/** Metadata only the server sets; a client's values are ignored. */
const SERVER_META = ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"];

const checkKind = (def: ResourceDef, obj: Obj): void => {
  const apiVersion = apiVersionOf(def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== def.kind) {
    throw badRequest(`${String(obj.kind)} in version "${def.version}" cannot be handled as a ${def.kind}`);
  }
};

/** `kind`, `apiVersion`, `metadata` first, as the real server encodes objects. */
const ordered = (def: ResourceDef, obj: Obj): Obj => {
  const { kind: _k, apiVersion: _a, metadata, ...rest } = obj;
  return { kind: def.kind, apiVersion: apiVersionOf(def), metadata: metadata ?? {}, ...rest };
};

const fail = (def: ResourceDef, obj: Obj, errs: FieldError[]): void => {
  if (errs.length) throw invalidError(def.group, def.kind, str(obj.metadata?.name) ?? "", errs);
};

export const prepareCreate = (def: ResourceDef, obj: Obj, namespace: string, ctx: WriteContext): Obj => {
  checkKind(def, obj);
  const meta = metaOf(obj);
  if (def.namespaced) {
    if (meta.namespace && meta.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    meta.namespace = namespace;
  } else delete meta.namespace;
  if (!meta.name && typeof meta.generateName === "string" && meta.generateName) {
    meta.name = `${meta.generateName}${ctx.suffix()}`;
  }
  if (meta.resourceVersion) throw badRequest("resourceVersion should not be set on objects to be created");
  delete meta.resourceVersion;
  delete meta.selfLink;
  normalizeTimes(def, obj);
  for (const k of SERVER_META) delete meta[k];
  meta.uid = ctx.uid();
  meta.creationTimestamp = formatTime(ctx.now());
  meta.generation = 1;
  applyDefaults(def, obj);
  fail(def, obj, validate(def, obj));
  return ordered(def, obj);
};

/** Everything but `metadata` and `status`: a change there bumps `metadata.generation`. */
const specPart = (obj: Obj): JsonObject => {
  const { metadata: _m, status: _s, kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
};

/**
 * The object an update of `old` with `candidate` stores. On the main resource `status` is kept from `old`; on the
 * `status` subresource the spec is kept from `old` and `metadata` and `status` come from `candidate` (as the real
 * status strategies of services and nodes do: they reset only the spec — upstream's service controller adds and
 * removes its finalizer through `services/status`). The caller has checked name and resourceVersion.
 */
export const prepareUpdate = (def: ResourceDef, old: Obj, candidate: Obj, subresource: "status" | undefined): Obj => {
  checkKind(def, candidate);
  let next: Obj;
  if (subresource === "status") {
    next = clone(old);
    if (candidate.metadata !== undefined) next.metadata = candidate.metadata;
    if (candidate.status === undefined) delete next.status;
    else next.status = candidate.status;
  } else {
    next = candidate;
    if (def.statusSubresource) {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
  }
  const meta = metaOf(next);
  const oldMeta = old.metadata ?? {};
  for (const k of [...SERVER_META, "name", "namespace"]) {
    if (oldMeta[k] === undefined) delete meta[k];
    else meta[k] = oldMeta[k];
  }
  delete meta.selfLink;
  normalizeTimes(def, next);
  applyDefaults(def, next, old);
  const errs = validate(def, next, old);
  if (oldMeta.deletionTimestamp) {
    const before = new Set(Array.isArray(oldMeta.finalizers) ? oldMeta.finalizers : []);
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).filter((f) => !before.has(f));
    if (added.length) {
      errs.push(
        forbiddenField(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
  }
  fail(def, next, errs);
  return ordered(def, next);
};

/** Bumps `next.metadata.generation` (in place: `next` is owned) when its spec part differs from `old`'s. */
export const bumpGeneration = (next: Obj, old: Obj): void => {
  const meta = metaOf(next);
  if (typeof meta.generation === "number" && !deepEqual(specPart(next), specPart(old))) meta.generation += 1;
};

/** Whether `next` differs from `old` in anything but its resourceVersion (a no-op write stores nothing). */
export const changed = (old: Obj, next: Obj): boolean => {
  const a = isObject(old.metadata) ? old.metadata : {};
  const b = isObject(next.metadata) ? next.metadata : {};
  return !deepEqual(
    { ...old, metadata: { ...a, resourceVersion: undefined } },
    {
      ...next,
      metadata: { ...b, resourceVersion: undefined },
    },
  );
};
