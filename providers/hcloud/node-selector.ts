/**
 * A Kubernetes label selector as `labels.Parse` reads it, for the `node-selector` annotation: `k`, `!k`, `k=v`,
 * `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`, `k<n`, comma-separated (all must hold). An empty selector
 * selects every Node, as in hccm. Keys must be qualified names and values label values, so a typo is refused here
 * instead of silently selecting no Node.
 */

import {
  type LabelRequirement,
  readRequirement,
  requirementHolds,
  splitRequirements,
} from "../../kube/label-selector.ts";

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

function requirement(text: string): LabelRequirement | string {
  const req = readRequirement(text);
  if (!req) {
    return `${JSON.stringify(text)} is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`;
  }
  if ((req.op === "in" || req.op === "notin") && req.values.length === 0) {
    return `${JSON.stringify(text)} has an empty set of values`;
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

/** The selector, or every reason it is not one. */
export function parseNodeSelector(text: string): NodeSelector | { readonly problems: readonly string[] } {
  const reqs: LabelRequirement[] = [];
  const problems: string[] = [];
  for (const part of splitRequirements(text)) {
    if (part === "") continue;
    const read = requirement(part);
    if (typeof read === "string") problems.push(read);
    else reqs.push(read);
  }
  if (problems.length > 0) return { problems };
  return { text, matches: (labels) => reqs.every((r) => requirementHolds(r, labels)) };
}
