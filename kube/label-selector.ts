/**
 * Kubernetes label-selector syntax, as `labels.Parse` reads it: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k>n`, `k<n`, comma-separated (all must hold). Syntax and matching only: each caller checks keys
 * and values itself, with the messages its reader expects (the API emulator answers as the API server does; a
 * provider names the annotation).
 */

export type LabelOp = "exists" | "!exists" | "=" | "!=" | "in" | "notin" | ">" | "<";

export interface LabelRequirement {
  readonly key: string;
  readonly op: LabelOp;
  /** One for `=`, `!=`, `>` and `<`; none for `exists`; a set's members for `in` and `notin` (none when empty). */
  readonly values: readonly string[];
}

/** A selector's requirements: split at commas outside a set's parentheses, trimmed; empty ones kept. */
export function splitRequirements(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim());
}

const SET = /^(\S+?)\s+(in|notin)\s*\(([^()]*)\)$/;
const BINARY = /^([^!=<>\s]+)\s*(==|!=|=|>|<)\s*(.*)$/;

/** One requirement's form (`==` read as `=`), or `undefined` when the text is none of them. */
export function readRequirement(text: string): LabelRequirement | undefined {
  const set = SET.exec(text);
  if (set) {
    const values = (set[3] ?? "").split(",").map((v) => v.trim());
    return { key: set[1] ?? "", op: set[2] as LabelOp, values: values.length === 1 && values[0] === "" ? [] : values };
  }
  const binary = BINARY.exec(text);
  if (binary) {
    const op = binary[2] === "==" ? "=" : (binary[2] as LabelOp);
    return { key: binary[1] ?? "", op, values: [(binary[3] ?? "").trim()] };
  }
  if (text.startsWith("!")) return { key: text.slice(1).trim(), op: "!exists", values: [] };
  if (/^\S+$/.test(text)) return { key: text, op: "exists", values: [] };
  return undefined;
}

/** Whether `labels` meet the requirement (`>` and `<` compare integers; a label that is none fails them). */
export function requirementHolds(req: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
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
