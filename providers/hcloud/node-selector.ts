/**
 * A Kubernetes label selector as `labels.Parse` reads it, for the `node-selector` annotation: `k`, `!k`, `k=v`,
 * `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`, `k<n`, comma-separated (all must hold). An empty selector
 * selects every Node, as in hccm. Keys must be qualified names and values label values, so a typo is refused here
 * instead of silently selecting no Node.
 */

import { labelValue, problemsText, qualifiedName } from "../../config/kube-names.ts";
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

function requirement(text: string): LabelRequirement | string {
  const req = readRequirement(text);
  if (!req) {
    return `${JSON.stringify(text)} is not a requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`;
  }
  if ((req.op === "in" || req.op === "notin") && req.values.length === 0) {
    return `${JSON.stringify(text)} has an empty set of values`;
  }
  const keyProblems = qualifiedName(req.key);
  if (keyProblems.length > 0) {
    return `the key ${JSON.stringify(req.key)} is not a label key: ${problemsText(keyProblems)}`;
  }
  const numeric = req.op === ">" || req.op === "<";
  for (const value of req.values) {
    if (numeric) {
      if (!/^-?\d+$/.test(value)) return `${JSON.stringify(value)} in ${JSON.stringify(text)} is not an integer`;
      continue;
    }
    const valueProblems = labelValue(value);
    if (valueProblems.length > 0) {
      return `${JSON.stringify(value)} in ${JSON.stringify(text)} is not a label value: ${problemsText(valueProblems)}`;
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
