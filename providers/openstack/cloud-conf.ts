/**
 * OCCM's `cloud.conf` as text → its sections and keys, read the way OCCM's gcfg reader (`gopkg.in/gcfg.v1`, through
 * `ReadConfig` in OCCM's `pkg/openstack/openstack.go`) reads them, on npm's `ini` parser:
 *
 * - Section and key names are case-insensitive (`[global]`, `Auth-URL`); a subsection keeps its case
 *   (`[LoadBalancerClass "Public"]`).
 * - A value may be in double quotes (`password = "p;a#ss"`), with `\"` and `\\` inside; `;` or `#` outside quotes
 *   starts a comment.
 * - A key given again adds a value: only the multi-valued keys (`public-network-name`) take several, and an empty
 *   value clears the list, as in gcfg.
 *
 * Where `ini` and gcfg would read one line differently, the line is refused instead of read one way: single quotes
 * (gcfg keeps them as part of the value, `ini` strips them), quotes around part of a value, a comment after a quoted
 * value (`ini` keeps the quotes then), a backslash outside quotes (gcfg's escapes and line continuation). Unknown sections and keys are errors, with the nearest known name.
 */
import { parse } from "ini";
import type { ConfigIssue } from "../../config/errors.ts";
import { nearest } from "../kit/named-settings.ts";

/** A section's keys as read: each key's values in order (one for a key given once). */
export type SectionValues = Readonly<Record<string, readonly string[]>>;

export interface SectionShape {
  /** The keys, lower-case as OCCM spells them. */
  readonly keys: readonly string[];
  /** Keys that may be given more than once, each time adding a value. */
  readonly multi?: readonly string[];
}

export interface CloudConfShape {
  /** Section name as OCCM spells it → its keys. */
  readonly sections: Readonly<Record<string, SectionShape>>;
  /** Sections with a quoted subsection name (`LoadBalancerClass`) → its keys. */
  readonly subsections: Readonly<Record<string, SectionShape>>;
}

export interface CloudConfRead {
  /** `Global` → `auth-url` → values; every known section present, empty when not in the file. */
  readonly sections: Readonly<Record<string, SectionValues>>;
  /** `LoadBalancerClass` → `Public` → keys. */
  readonly subsections: Readonly<Record<string, Readonly<Record<string, SectionValues>>>>;
  readonly issues: readonly ConfigIssue[];
}

/** A section line as gcfg reads it: indented or not, with or without a comment after it. */
const SECTION_LINE = /^\s*\[([^\]]*)\]\s*(?:[;#].*)?$/;
const SUBSECTION = /^\s*([A-Za-z][A-Za-z0-9.-]*)\s+"((?:[^"\\]|\\.)*)"\s*$/;
const KEY = /^[A-Za-z][A-Za-z0-9-]*$/;

/** Reads `text`; every problem is an issue naming `[Section] key`, none thrown. */
export function readCloudConf(text: string, shape: CloudConfShape): CloudConfRead {
  const issues: ConfigIssue[] = [];
  lint(text, issues);
  // `ini` reads a section line only unindented and without a comment, and nests `[a.b]` in `[a]`; gcfg does neither.
  const escaped = text
    .split(/\r?\n/)
    .map((line) => {
      const header = SECTION_LINE.exec(line);
      return header ? `[${(header[1] ?? "").replaceAll(".", "\\.")}]` : line;
    })
    .join("\n");
  const parsed = parse(escaped, { bracketedArray: false }) as Record<string, unknown>;

  const sections: Record<string, Record<string, string[]>> = {};
  for (const name of Object.keys(shape.sections)) sections[name] = {};
  const subsections: Record<string, Record<string, Record<string, string[]>>> = {};
  for (const name of Object.keys(shape.subsections)) subsections[name] = {};

  for (const [rawName, body] of Object.entries(parsed)) {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      issues.push({
        path: keyPath("", rawName),
        message: "is outside any section; put it under [Global] or the section it belongs to",
      });
      continue;
    }
    const sub = SUBSECTION.exec(rawName);
    if (sub) {
      const base = known(Object.keys(shape.subsections), sub[1] ?? "");
      if (!base) {
        issues.push({ path: `[${rawName}]`, message: unknownSection(rawName, shape) });
        continue;
      }
      const subName = (sub[2] ?? "").replace(/\\(.)/g, "$1");
      const target = subsections[base] as Record<string, Record<string, string[]>>;
      const label = `${base} "${subName}"`;
      target[subName] = readSection(label, body as Record<string, unknown>, shape.subsections[base], issues);
      continue;
    }
    const name = known(Object.keys(shape.sections), rawName.trim());
    if (!name) {
      issues.push({ path: `[${rawName}]`, message: unknownSection(rawName, shape) });
      continue;
    }
    const into = readSection(name, body as Record<string, unknown>, shape.sections[name], issues);
    const existing = sections[name] as Record<string, string[]>;
    for (const [key, values] of Object.entries(into)) existing[key] = [...(existing[key] ?? []), ...values];
  }
  return { sections, subsections, issues };
}

/** `[Global] auth-url`: how messages name a key. */
export function keyPath(section: string, key: string): string {
  return section === "" ? key : `[${section}] ${key}`;
}

function readSection(
  section: string,
  body: Record<string, unknown>,
  shape: SectionShape | undefined,
  issues: ConfigIssue[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const keys = shape?.keys ?? [];
  for (const [rawKey, raw] of Object.entries(body)) {
    const key = rawKey.trim().toLowerCase();
    if (!KEY.test(key)) {
      issues.push({ path: keyPath(section, rawKey.trim()), message: "is not a key name: letters, digits and '-'" });
      continue;
    }
    if (!keys.includes(key)) {
      const near = closest(key, keys);
      issues.push({
        path: keyPath(section, key),
        message: `is not a key of [${section}]${near ? `; did you mean ${near}?` : ""}`,
      });
      continue;
    }
    // `ini` reads `true`/`false`/`null` as values of their own, a key without `=` as `true`: back to gcfg's text.
    const values = (Array.isArray(raw) ? raw : [raw]).map((v) => (v === null ? "null" : String(v)));
    out[key] = [...(out[key] ?? []), ...values];
  }
  for (const [key, values] of Object.entries(out)) {
    if (shape?.multi?.includes(key)) {
      // gcfg: an empty value clears what came before it.
      const last = values.lastIndexOf("");
      out[key] = values.slice(last + 1);
    } else if (values.length > 1) {
      issues.push({
        path: keyPath(section, key),
        message: `is given ${values.length} times; it takes one value, so keep one line`,
      });
    }
  }
  return out;
}

/** The name `name` most likely misspells, whatever its case (`nearest` compares upper-case names). */
function closest(name: string, names: readonly string[]): string | undefined {
  const upper = nearest(
    name,
    names.map((n) => n.toUpperCase()),
  );
  return names.find((n) => n.toUpperCase() === upper);
}

function known(names: readonly string[], name: string): string | undefined {
  return names.find((n) => n.toLowerCase() === name.toLowerCase());
}

function unknownSection(name: string, shape: CloudConfShape): string {
  const all = [...Object.keys(shape.sections), ...Object.keys(shape.subsections).map((s) => `${s} "<name>"`)];
  const near = closest(name, Object.keys(shape.sections));
  return `is not a section OCCM reads${near ? `; did you mean [${near}]?` : ""} (sections: ${all.map((s) => `[${s}]`).join(", ")})`;
}

/** Lines `ini` and gcfg would read differently, each an issue naming its line. */
function lint(text: string, issues: ConfigIssue[]): void {
  let section = "";
  text.split(/\r?\n/).forEach((line, index) => {
    const at = `line ${index + 1}`;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith(";") || trimmed.startsWith("#")) return;
    const header = SECTION_LINE.exec(line);
    if (header) {
      section = (header[1] ?? "").trim();
      return;
    }
    const eq = line.indexOf("=");
    if (eq < 0) return;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    const where = keyPath(section, key.toLowerCase());
    const problem = misread(value);
    if (problem) issues.push({ path: where, message: `${problem} (${at})` });
  });
}

function misread(value: string): string | undefined {
  if (value.startsWith("'")) {
    return "is in single quotes, which OCCM keeps as part of the value; write it in double quotes, or without quotes";
  }
  if (value.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"$/.exec(value);
    if (!m) {
      return /^"((?:[^"\\]|\\.)*)"\s*[;#]/.test(value)
        ? "has a comment after its quotes, which would be read as part of it; put the comment on a line of its own"
        : "has quotes around part of it; put the whole value in one pair of double quotes";
    }
    if (/\\[^"\\nt]/.test(m[1] ?? "")) return 'has a backslash escape other than \\" \\\\ \\n \\t inside its quotes';
    return undefined;
  }
  const beforeComment = value.split(/[;#]/)[0] ?? "";
  if (beforeComment.includes('"')) {
    return "has quotes around part of it; put the whole value in one pair of double quotes";
  }
  if (beforeComment.includes("\\")) {
    return "has a backslash outside quotes (an escape or a line continuation to OCCM); write the value in double quotes, doubling each backslash";
  }
  return undefined;
}
