/**
 * Label and field selectors, parsed once per request into predicates.
 *
 * Label grammar: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`, `k<n`, comma-separated
 * (AND). Field grammar: `f=v`, `f==v`, `f!=v`, comma-separated, with `\,` `\=` `\\` escapes in values; only the
 * fields a resource declares are accepted (others ⇒ 400 `field label not supported`, as the real server answers).
 */

import {
  type LabelRequirement,
  readRequirement,
  requirementHolds,
  splitRequirements,
} from "../../kube/label-selector.ts";
import { type Obj, stringMap } from "./json.ts";
import { labelValue, qualifiedName } from "./names.ts";
import type { ResourceDef } from "./resources.ts";
import { badRequest } from "./status-errors.ts";

export type Predicate = (obj: Obj) => boolean;

// Kubernetes passes over empty requirements (`a=b,,c`).
const splitTopLevel = (s: string): string[] => splitRequirements(s).filter((p) => p.length > 0);

/** One requirement, checked as the API server checks it (its 400 messages). */
const parseRequirement = (text: string): LabelRequirement => {
  const req = readRequirement(text);
  if (!req) throw badRequest(`unable to parse requirement: found '${text}', expected: in, notin, =, ==, !=, gt, lt`);
  const keyErrs = qualifiedName(req.key);
  if (keyErrs.length) throw badRequest(`unable to parse requirement: key: Invalid value: "${req.key}": ${keyErrs[0]}`);
  for (const v of req.values) {
    const errs = req.op === ">" || req.op === "<" ? (/^-?\d+$/.test(v) ? [] : ["must be an integer"]) : labelValue(v);
    if (errs.length) throw badRequest(`unable to parse requirement: values[0]: Invalid value: "${v}": ${errs[0]}`);
  }
  if ((req.op === "in" || req.op === "notin") && req.values.length === 0) {
    throw badRequest(
      "unable to parse requirement: values: Required value: for 'in', 'notin' operators, values set can't be empty",
    );
  }
  return req;
};

/** A label selector string as a predicate on objects; `undefined` for an empty selector (matches everything). */
export const parseLabelSelector = (selector: string | undefined): Predicate | undefined => {
  if (!selector?.trim()) return undefined;
  const reqs = splitTopLevel(selector).map(parseRequirement);
  return (obj) => {
    const labels = stringMap(obj.metadata?.labels);
    return reqs.every((r) => requirementHolds(r, labels));
  };
};

/** Splits on unescaped commas and unescapes `\,` `\=` `\\`. */
const splitFieldTerms = (s: string): { field: string; op: "=" | "!="; value: string }[] => {
  const terms: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === ",") {
      terms.push(cur);
      cur = "";
    } else cur += c;
  }
  terms.push(cur);
  return terms
    .filter((t) => t.trim().length > 0)
    .map((t) => {
      const m = /^([^=!]+?)\s*(==|!=|=)(.*)$/s.exec(t.trim());
      if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${t}'`);
      const value = m[3]!.replace(/\\(.)/g, "$1");
      return { field: m[1]!.trim(), op: m[2] === "!=" ? "!=" : "=", value };
    });
};

const metadataFields: Record<string, (obj: Obj) => string> = {
  "metadata.name": (o) => String(o.metadata?.name ?? ""),
  "metadata.namespace": (o) => String(o.metadata?.namespace ?? ""),
};

/** A field selector as a predicate over stored objects of `def`; 400 for a field the resource does not support. */
export const parseFieldSelector = (def: ResourceDef, selector: string | undefined): Predicate | undefined => {
  if (!selector?.trim()) return undefined;
  const terms = splitFieldTerms(selector).map((t) => {
    const read = metadataFields[t.field] ?? def.fields[t.field];
    if (!read) throw badRequest(`field label not supported: ${t.field}`);
    return { ...t, read };
  });
  return (obj) => terms.every((t) => (t.read(obj) === t.value) === (t.op === "="));
};

/** Both selectors as one predicate (undefined when neither is set). */
export const combine = (a: Predicate | undefined, b: Predicate | undefined): Predicate | undefined =>
  a && b ? (o) => a(o) && b(o) : (a ?? b);
