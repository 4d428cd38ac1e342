/**
 * The reference of a provider's annotations, generated from its declarations (as docs/flags.md is from the flags)
 * into a marked section of its documentation page, so the page cannot drift from the code.
 */
import type { Annotation } from "./declare.ts";

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (s: string) => (s === "" ? '`""`' : `\`${s.replaceAll("`", "'")}\``);

function defaultOf(a: Annotation<unknown, unknown>): string {
  if (a.defaultText !== undefined) return cell(a.defaultText);
  if (a.default === undefined) return "not set";
  return code(a.reader.format(a.default));
}

/** A Markdown table of the annotations: key, type, default, meaning (with what is accepted) and an example. */
export function annotationTable(annotations: readonly Annotation<unknown, unknown>[]): string {
  const out = ["| annotation | type | default | meaning | example |", "|---|---|---|---|---|"];
  for (const a of annotations) {
    const meaning =
      a.writtenBy === "provider"
        ? `${a.description} *Written by the provider; do not edit.*`
        : `${a.description} Accepts ${a.reader.accepts}.`;
    out.push(`| \`${a.key}\` | ${a.reader.type} | ${defaultOf(a)} | ${cell(meaning)} | ${code(a.example)} |`);
  }
  return out.join("\n");
}

const begin = (name: string) =>
  `<!-- BEGIN GENERATED ${name}: npx bun scripts/gen-docs.ts writes this; do not edit -->`;
const end = (name: string) => `<!-- END GENERATED ${name} -->`;

/**
 * `page` with the text between its markers for `name` replaced by `body`. The markers must be there (a page
 * without them is a mistake to report, not a place to append to).
 */
export function withGeneratedSection(page: string, name: string, body: string, where = "the page"): string {
  const from = page.indexOf(begin(name));
  const to = page.indexOf(end(name));
  if (from < 0 || to < from) {
    throw new Error(`${where} has no generated section "${name}": add the lines\n${begin(name)}\n${end(name)}`);
  }
  return `${page.slice(0, from + begin(name).length)}\n${body.trimEnd()}\n${page.slice(to)}`;
}
