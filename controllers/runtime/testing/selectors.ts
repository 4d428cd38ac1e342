/** Label and field selectors, evaluated the way the API server does for the forms our code sends. */
import type { KubeObject } from "../../../kube/objects.ts";

type Requirement = (labels: Record<string, string>) => boolean;

/** Splits on commas that are not inside `( … )`. */
const splitTopLevel = (selector: string): string[] => {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
};

const parseRequirement = (term: string): Requirement => {
  const setMatch = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (setMatch) {
    const [, key = "", op, list = ""] = setMatch;
    const values = new Set(list.split(",").map((v) => v.trim()));
    return op === "in"
      ? (labels) => key in labels && values.has(labels[key] ?? "")
      : (labels) => !(key in labels) || !values.has(labels[key] ?? "");
  }
  const cmp = /^([^\s!=]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (cmp) {
    const [, key = "", op, value = ""] = cmp;
    return op === "!=" ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  if (term.startsWith("!")) {
    const key = term.slice(1).trim();
    return (labels) => !(key in labels);
  }
  return (labels) => term in labels;
};

export const matchesLabelSelector = (selector: string | undefined, obj: KubeObject): boolean => {
  if (!selector) return true;
  const labels = obj.metadata?.labels ?? {};
  return splitTopLevel(selector).every((term) => parseRequirement(term)(labels));
};

const fieldValue = (obj: unknown, path: string): string => {
  let node: unknown = obj;
  for (const part of path.split(".")) {
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  }
  return node === undefined || node === null ? "" : String(node);
};

export const matchesFieldSelector = (selector: string | undefined, obj: KubeObject): boolean => {
  if (!selector) return true;
  return splitTopLevel(selector).every((term) => {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) return false;
    const [, path = "", op, value = ""] = m;
    const actual = fieldValue(obj, path.trim());
    return op === "!=" ? actual !== value.trim() : actual === value.trim();
  });
};
