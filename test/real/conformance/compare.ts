/**
 * Normalising and comparing the two servers' observations: values that legitimately differ between any two runs
 * (uids, resource versions, timestamps, allocated addresses and ports, continue tokens) are replaced by
 * placeholders, then the two records are compared field by field. A difference is explained when an entry of
 * accepted-differences.ts matches its step and path.
 */
import type { Observation } from "./targets.ts";

export interface Difference {
  readonly step: string;
  /** `status`, or `body.<field>.<index>…`. */
  readonly path: string;
  readonly emulator: unknown;
  readonly real: unknown;
}

export interface AcceptedDifference {
  /** Glob over step names (`*` any text). */
  readonly step: string;
  /** Glob over paths (`*` one segment, `**` any number of segments). */
  readonly path: string;
  /** When given, the difference must have exactly these values (`"(absent)"` for a missing field). */
  readonly emulator?: unknown;
  readonly real?: unknown;
  readonly reason: string;
}

const PLACEHOLDERS: Readonly<Record<string, string>> = {
  uid: "<uid>",
  resourceVersion: "<rv>",
  creationTimestamp: "<time>",
  deletionTimestamp: "<time>",
  time: "<time>",
  lastHeartbeatTime: "<time>",
  lastTransitionTime: "<time>",
  clusterIP: "<ip>",
  nodePort: "<port>",
  continue: "<continue>",
};

/** Resource versions quoted in messages ("too old resource version: 12 (34)"). */
const numbersInVersionMessages = (text: string): string =>
  /resource ?version/i.test(text) ? text.replace(/\d+/g, "<n>") : text;

export function normalise(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) {
    if (key === "clusterIPs") return value.map(() => "<ip>");
    return value.map((v) => normalise(v));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v, k);
    return out;
  }
  if (typeof value === "string" || typeof value === "number") {
    const placeholder = PLACEHOLDERS[key];
    if (placeholder !== undefined && value !== "" && value !== "None") return placeholder;
    if (key === "message" && typeof value === "string") return numbersInVersionMessages(value);
  }
  return value;
}

function diffValues(a: unknown, b: unknown, path: string, out: { path: string; a: unknown; b: unknown }[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(a[i], b[i], `${path}.${i}`, out);
    return;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffValues(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  if (!Bun.deepEquals(a, b)) out.push({ path, a, b });
}

/** Field-by-field differences of two records of the same interactions, after normalising both. */
export function compareObservations(emulator: readonly Observation[], real: readonly Observation[]): Difference[] {
  const out: Difference[] = [];
  for (let i = 0; i < Math.max(emulator.length, real.length); i++) {
    const e = emulator[i];
    const r = real[i];
    if (!e || !r || e.step !== r.step) {
      out.push({ step: e?.step ?? r?.step ?? `#${i}`, path: "step", emulator: e?.step, real: r?.step });
      continue;
    }
    const found: { path: string; a: unknown; b: unknown }[] = [];
    diffValues(e.status, r.status, "status", found);
    diffValues(normalise(e.body), normalise(r.body), "body", found);
    for (const d of found) out.push({ step: e.step, path: d.path, emulator: d.a, real: d.b });
  }
  return out;
}

const globToRegExp = (glob: string, segment: string): RegExp =>
  new RegExp(
    `^${glob
      .split(/(\*\*|\*)/)
      .map((part) => (part === "**" ? ".*" : part === "*" ? segment : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
      .join("")}$`,
  );

const ABSENT = "(absent)";
const sameValue = (want: unknown, got: unknown): boolean =>
  want === undefined || (want === ABSENT ? got === undefined : Bun.deepEquals(want, got));

export function explain(d: Difference, accepted: readonly AcceptedDifference[]): AcceptedDifference | undefined {
  return accepted.find(
    (a) =>
      globToRegExp(a.step, ".*").test(d.step) &&
      globToRegExp(a.path, "[^.]*").test(d.path) &&
      sameValue(a.emulator, d.emulator) &&
      sameValue(a.real, d.real),
  );
}

const show = (v: unknown): string => (v === undefined ? ABSENT : JSON.stringify(v));

const line = (d: Difference): string =>
  `${d.step} :: ${d.path}: emulator ${show(d.emulator).slice(0, 200)}, real ${show(d.real).slice(0, 200)}`;

/**
 * Every unexplained difference on a line of its own; the accepted ones grouped by their entry, with a count and
 * the first occurrence (or each on its own line when `verbose`).
 */
export function report(diffs: readonly Difference[], accepted: readonly AcceptedDifference[], verbose = false): string {
  const out: string[] = [];
  const groups = new Map<AcceptedDifference, Difference[]>();
  for (const d of diffs) {
    const why = explain(d, accepted);
    if (!why) out.push(`UNEXPLAINED ${line(d)}`);
    else groups.set(why, [...(groups.get(why) ?? []), d]);
  }
  for (const [why, ds] of groups) {
    out.push(`accepted ×${ds.length} — ${why.reason}`);
    for (const d of verbose ? ds : ds.slice(0, 1)) out.push(`    ${verbose ? "" : "e.g. "}${line(d)}`);
  }
  return out.join("\n");
}
