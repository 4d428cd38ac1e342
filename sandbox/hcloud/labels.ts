/**
 * Labels and label selectors as the Hetzner Cloud API has them.
 *
 * A key is an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters that starts and ends with
 * an alphanumeric and may hold `-`, `_` and `.`; a value follows the name rule or is empty. `hetzner.cloud/` is
 * reserved. A selector is requirements joined by commas (AND): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`,
 * `k notin (a,b)`. `k!=v` and `k notin (…)` also hold for a resource without the key, as in Kubernetes.
 */
import { splitRequirements } from "../../kube/label-selector.ts";
import { invalidInput } from "./errors.ts";

export type Labels = Record<string, string>;

const NAME = /^([a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?)$/;
const PREFIX = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const RESERVED_PREFIX = "hetzner.cloud";

/** Why `key` is not a valid label key, or `undefined`. */
export function keyProblem(key: string, reserved = true): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix.length > 253 || !PREFIX.test(prefix)) return `label key '${key}': the prefix must be a DNS subdomain`;
    if (reserved && (prefix === RESERVED_PREFIX || prefix.endsWith(`.${RESERVED_PREFIX}`))) {
      return `label key '${key}': the prefix '${RESERVED_PREFIX}/' is reserved`;
    }
  }
  if (!NAME.test(name)) {
    return `label key '${key}': the name must be 1-63 characters, alphanumeric at both ends, with '-', '_', '.' between`;
  }
  return undefined;
}

/** Why `value` is not a valid label value, or `undefined`. */
export function valueProblem(key: string, value: string): string | undefined {
  if (value === "" || NAME.test(value)) return undefined;
  return `label value '${value}' of '${key}': at most 63 characters, alphanumeric at both ends, with '-', '_', '.' between`;
}

/** Throws `invalid_input` on field `field` naming every bad key and value. */
export function checkLabels(labels: Labels, field = "labels"): void {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    const problem = keyProblem(key) ?? valueProblem(key, value);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw invalidInput({ [field]: problems });
}

type Requirement =
  | { readonly op: "exists" | "!exists"; readonly key: string }
  | { readonly op: "in" | "notin"; readonly key: string; readonly values: readonly string[] };

export type LabelPredicate = (labels: Labels) => boolean;

/** A predicate over labels; throws `invalid_input` on field `label_selector` naming the requirement it cannot read. */
export function parseLabelSelector(selector: string): LabelPredicate {
  const requirements = splitTopLevel(selector).map(parseRequirement);
  return (labels) => requirements.every((r) => holds(r, labels));
}

function holds(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case "exists":
      return has;
    case "!exists":
      return !has;
    case "in":
      return has && r.values.includes(labels[r.key] ?? "");
    case "notin":
      return !has || !r.values.includes(labels[r.key] ?? "");
  }
}

const SET = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/;
const BINARY = /^([^!=\s]+)\s*(==|!=|=)\s*([^=\s]*)$/;

function parseRequirement(text: string): Requirement {
  const set = SET.exec(text);
  if (set) {
    const values = (set[3] ?? "").split(",").map((s) => s.trim());
    if (values.some((s) => s === "")) throw badSelector(text, "a set needs values between its commas");
    return checked({ key: set[1] ?? "", op: set[2] as "in" | "notin", values }, text);
  }
  const binary = BINARY.exec(text);
  if (binary) {
    const op = binary[2] === "!=" ? "notin" : "in";
    return checked({ key: binary[1] ?? "", op, values: [binary[3] ?? ""] }, text);
  }
  if (text.startsWith("!")) return checked({ key: text.slice(1).trim(), op: "!exists" }, text);
  if (/^\S+$/.test(text)) return checked({ key: text, op: "exists" }, text);
  throw badSelector(text, "expected k, !k, k=v, k==v, k!=v, k in (a,b) or k notin (a,b)");
}

function checked(r: Requirement, text: string): Requirement {
  const problem =
    keyProblem(r.key) ?? ("values" in r ? r.values.map((v) => valueProblem(r.key, v)).find(Boolean) : undefined);
  if (problem) throw badSelector(text, problem);
  return r;
}

function badSelector(text: string, why: string) {
  return invalidInput({ label_selector: [`cannot read '${text}': ${why}`] });
}

/** Requirements split as the Kubernetes emulator splits them; Hetzner refuses an empty one. */
function splitTopLevel(s: string): string[] {
  const parts = splitRequirements(s);
  if (parts.some((p) => p === "")) throw badSelector(s, "an empty requirement between commas");
  return parts;
}
