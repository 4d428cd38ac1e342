/**
 * Time fields: checked and normalised the way the real server's decoding does it.
 *
 * `Time` fields take RFC 3339 (any fraction) and come back in UTC with whole seconds; `MicroTime` fields (Lease
 * times, events' `eventTime`) need exactly six fractional digits — Go parses them with a fixed
 * `.000000` layout — and come back in UTC with six digits. Anything else is a decode error: 400 BadRequest.
 */
import { isObject, type JsonObject } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { badRequest } from "./status-errors.ts";

type TimeKind = "time" | "micro";

const TIME_LAYOUT = "2006-01-02T15:04:05Z07:00";
const MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

const common: Record<string, TimeKind> = {
  "metadata.creationTimestamp": "time",
  "metadata.deletionTimestamp": "time",
  "metadata.managedFields[].time": "time",
};

/** Keyed by resource id; paths in the form the client sends (events.k8s.io names differ from core). */
const byResource: Record<string, Record<string, TimeKind>> = {
  "core/nodes": {
    "spec.taints[].timeAdded": "time",
    "status.conditions[].lastHeartbeatTime": "time",
    "status.conditions[].lastTransitionTime": "time",
  },
  "core/services": { "status.conditions[].lastTransitionTime": "time" },
  "core/namespaces": { "status.conditions[].lastTransitionTime": "time" },
  "core/pods": {
    "status.startTime": "time",
    "status.conditions[].lastProbeTime": "time",
    "status.conditions[].lastTransitionTime": "time",
  },
  "core/events": {
    firstTimestamp: "time",
    lastTimestamp: "time",
    eventTime: "micro",
    "series.lastObservedTime": "micro",
  },
  "events.k8s.io/events": {
    deprecatedFirstTimestamp: "time",
    deprecatedLastTimestamp: "time",
    eventTime: "micro",
    "series.lastObservedTime": "micro",
  },
  "apps/deployments": {
    "status.conditions[].lastUpdateTime": "time",
    "status.conditions[].lastTransitionTime": "time",
  },
  "coordination.k8s.io/leases": { "spec.acquireTime": "micro", "spec.renewTime": "micro" },
};

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The normalised form of `value`, or undefined when it does not parse. */
export const normalizeTime = (value: string, kind: TimeKind): string | undefined => {
  const m = rfc3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  if (kind === "micro" && frac?.length !== 6) return undefined;
  const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(local);
  if (
    month < 1 ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return undefined;
  }
  const offsetMin = sign ? (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const whole = new Date(local - offsetMin * 60_000).toISOString().slice(0, 19);
  return kind === "micro" ? `${whole}.${frac}Z` : `${whole}Z`;
};

/** Formats a clock reading as a `Time` (whole seconds, UTC). */
export const formatTime = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const visit = (node: unknown, parts: string[], fix: (holder: JsonObject, key: string) => void): void => {
  if (!isObject(node) || parts.length === 0) return;
  const [head, ...rest] = parts as [string, ...string[]];
  const list = head.endsWith("[]");
  const key = list ? head.slice(0, -2) : head;
  if (rest.length === 0) {
    if (Object.hasOwn(node, key)) fix(node, key);
    return;
  }
  const child = node[key];
  if (list) {
    if (Array.isArray(child)) for (const el of child) visit(el, rest, fix);
  } else visit(child, rest, fix);
};

/** Checks and rewrites the time fields of an owned (not yet stored) object in place; 400 on a malformed one. */
export const normalizeTimes = (def: ResourceDef, obj: JsonObject): void => {
  const paths = { ...common, ...byResource[def.id] };
  for (const [path, kind] of Object.entries(paths)) {
    visit(obj, path.split("."), (holder, key) => {
      const v = holder[key];
      if (v === null) return;
      const fixed = typeof v === "string" ? normalizeTime(v, kind) : undefined;
      if (fixed === undefined) {
        const layout = kind === "micro" ? MICRO_LAYOUT : TIME_LAYOUT;
        throw badRequest(
          `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: parsing time ${JSON.stringify(v)} as "${layout}": cannot parse ${path}`,
        );
      }
      holder[key] = fixed;
    });
  }
};
