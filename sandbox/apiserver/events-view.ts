/**
 * events.k8s.io/v1 Events are a second view of the core/v1 Events storage, as in the real server: an event
 * recorded through either API shows up in both (so `kubectl describe` lists events our recorder wrote with the
 * new API). Field names map one to one.
 */
import type { Obj } from "./json.ts";
import type { ResourceDef } from "./resources.ts";

/** [events.k8s.io/v1 name, core/v1 name]; `metadata`, `reason`, `type`, `eventTime`, `series`, `action`, … map 1:1. */
const renames: readonly (readonly [string, string])[] = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

const shared = ["metadata", "eventTime", "series", "reportingInstance", "action", "reason", "related", "type"];

const copy = (from: Obj, to: Obj, pairs: readonly (readonly [string, string])[]): Obj => {
  for (const [a, b] of pairs) if (from[a] !== undefined) to[b] = from[a];
  return to;
};

const identity = shared.map((k) => [k, k] as const);

/** An events.k8s.io/v1 Event in its core/v1 storage form. */
export const eventToStorage = (view: Obj): Obj =>
  copy(view, copy(view, { apiVersion: "v1", kind: "Event" }, identity), renames);

/** A stored core/v1 Event as events.k8s.io/v1 sees it. */
export const eventFromStorage = (core: Obj): Obj =>
  copy(
    core,
    copy(core, { apiVersion: "events.k8s.io/v1", kind: "Event" }, identity),
    renames.map(([a, b]) => [b, a] as const),
  );

/** `obj` as stored (identity except for the events.k8s.io view, the only resource stored under another one). */
export const toStorageForm = (def: ResourceDef, obj: Obj): Obj => (def.storage === def.id ? obj : eventToStorage(obj));

/** A stored object as `def` presents it. */
export const toViewForm = (def: ResourceDef, obj: Obj): Obj => (def.storage === def.id ? obj : eventFromStorage(obj));
