/**
 * A Kubernetes label selector as `labels.Parse` reads it, for the `node-selector` annotation: `k`, `!k`, `k=v`,
 * `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`, `k<n`, comma-separated (all must hold). An empty selector
 * selects every Node, as in hccm. Keys must be qualified names and values label values, so a typo is refused here
 * instead of silently selecting no Node.
 */

type Op = "exists" | "!exists" | "=" | "!=" | "in" | "notin" | ">" | "<";

interface Requirement {
  readonly key: string;
  readonly op: Op;
  readonly values: readonly string[];
}

export interface NodeSelector {
  /** The selector as written, for messages. */
  readonly text: string;
  matches(labels: Readonly<Record<string, string>>): boolean;
}

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

function keyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) {
    return `the key ${JSON.stringify(key)} has a prefix that is not a DNS subdomain`;
  }
  if (!NAME.test(name)) {
    return `the key ${JSON.stringify(key)} is not a label name (up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`;
  }
  return undefined;
}

/** Requirements split at commas outside parentheses. */
function split(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

const SET = /^(\S+?)\s+(in|notin)\s*\(([^()]*)\)$/;
const BINARY = /^([^!=<>\s]+)\s*(==|!=|=|>|<)\s*(.*)$/;

function requirement(text: string): Requirement | string {
  let req: Requirement;
  const set = SET.exec(text);
  const binary = set ? null : BINARY.exec(text);
  if (set) {
    const values = (set[3] ?? "").split(",").map((s) => s.trim());
    if (values.length === 1 && values[0] === "") return `${JSON.stringify(text)} has an empty set of values`;
    req = { key: set[1] ?? "", op: set[2] as Op, values };
  } else if (binary) {
    const op = binary[2] === "==" ? "=" : (binary[2] as Op);
    req = { key: binary[1] ?? "", op, values: [(binary[3] ?? "").trim()] };
  } else if (text.startsWith("!")) {
    req = { key: text.slice(1).trim(), op: "!exists", values: [] };
  } else if (/^\S+$/.test(text)) {
    req = { key: text, op: "exists", values: [] };
  } else {
    return `${JSON.stringify(text)} is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`;
  }
  const bad = keyProblem(req.key);
  if (bad) return bad;
  for (const value of req.values) {
    const numeric = req.op === ">" || req.op === "<";
    if (numeric ? !/^-?\d+$/.test(value) : value.length > 63 || !VALUE.test(value)) {
      return `${JSON.stringify(value)} in ${JSON.stringify(text)} is not ${numeric ? "an integer" : "a label value"}`;
    }
  }
  return req;
}

function holds(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const value = Object.hasOwn(labels, req.key) ? labels[req.key] : undefined;
  switch (req.op) {
    case "exists":
      return value !== undefined;
    case "!exists":
      return value === undefined;
    case "=":
      return value === req.values[0];
    case "!=":
      return value !== req.values[0];
    case "in":
      return value !== undefined && req.values.includes(value);
    case "notin":
      return value === undefined || !req.values.includes(value);
    case ">":
    case "<": {
      if (value === undefined || !/^-?\d+$/.test(value)) return false;
      return req.op === ">" ? Number(value) > Number(req.values[0]) : Number(value) < Number(req.values[0]);
    }
  }
}

/** The selector, or every reason it is not one. */
export function parseNodeSelector(text: string): NodeSelector | { readonly problems: readonly string[] } {
  const reqs: Requirement[] = [];
  const problems: string[] = [];
  for (const part of split(text)) {
    if (part === "") continue;
    const read = requirement(part);
    if (typeof read === "string") problems.push(read);
    else reqs.push(read);
  }
  if (problems.length > 0) return { problems };
  return { text, matches: (labels) => reqs.every((r) => holds(r, labels)) };
}
