/**
 * Validation of what an operator wrote, shared by every layer that reads it (the kubeconfig reader, provider
 * cloud-configs, the emulators' request bodies): a valibot schema checked with every issue reported at once, dotted
 * field paths, messages that say what to do, and YAML the parser would read other than its author meant (a key given
 * twice, a node tag) refused instead of silently misread.
 */
import * as v from "valibot";
import { ConfigError, type ConfigIssue } from "./errors.ts";
import { duplicateKeys, yamlTags } from "./yaml-keys.ts";

/** Tags that change nothing where a string is read. */
const HARMLESS_TAGS = new Set(["!!str", "!<tag:yaml.org,2002:str>"]);

/** The tags of `text` a reader must refuse, each an issue naming its key; see `rejectMisreadYaml`. */
export function tagIssues(text: string): ConfigIssue[] {
  return yamlTags(text)
    .filter(({ tag }) => !HARMLESS_TAGS.has(tag))
    .map(({ tag, key, line }) => ({
      path: key,
      message: `has the YAML tag ${tag} (line ${line}), which is not applied here (a !!binary value would be read as its base64 text); write the value as a plain string, without the tag`,
    }));
}

/**
 * Throws a `ConfigError` naming every key given twice in one mapping, with its lines (the parser would keep the last
 * silently, and the operator meant one of them), and every value with a node tag other than `!!str`, by its key
 * (the parser drops the tag unapplied: `token: !!binary aGVsbG8=` would be read as `aGVsbG8=`, not `hello`).
 */
export function rejectMisreadYaml(text: string, source: string): void {
  const issues = [
    ...duplicateKeys(text).map(({ key, line, firstLine }) => ({
      path: key,
      message: `is given twice in one mapping, at lines ${firstLine} and ${line}; YAML keeps only the last, so remove one`,
    })),
    ...tagIssues(text),
  ];
  if (issues.length > 0) throw new ConfigError(source, issues);
}

/** Validate `value` against `schema`, reporting every issue at once as a `ConfigError` from `source`. */
export function validate<S extends v.GenericSchema>(schema: S, value: unknown, source: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  throw new ConfigError(source, issuesOf(result.issues));
}

/** valibot issues as `{path, message}` pairs, with dotted paths (`loadBalancer.pools[0].cidr`). */
export function issuesOf(issues: readonly v.BaseIssue<unknown>[]): ConfigIssue[] {
  return issues.map((issue) => ({ path: dottedPath(issue), message: friendlyMessage(issue) }));
}

/** valibot's default texts for a missing or unknown key read like type errors; say what the user must do. */
function friendlyMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.message.startsWith("Invalid key:")) {
    if (issue.received === "undefined") return "is required but missing";
    if (issue.expected === "never") return "is not a known field; check its spelling against the documentation";
  }
  return issue.message;
}

function dottedPath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  }
  return out;
}
