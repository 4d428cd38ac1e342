/**
 * A provider's settings reference, declared beside its settings (`ProviderSettings.reference`) and generated into
 * its documentation page by `bun scripts/gen-docs.ts`, so the page cannot drift from what the provider reads: one
 * row per setting or group of settings read together, with the default as an operator would type it and the
 * meaning, bounds included.
 */

export interface SettingDoc {
  /** The names as the operator gives them (`HCLOUD_TOKEN`), one row for settings that go together. */
  readonly names: readonly string[];
  /** Markdown: a value as typed (`` `0.9` ``), or words (`not set`, `required`, `the API's`). */
  readonly default: string;
  /** What it does and what it accepts, in Markdown. */
  readonly meaning: string;
}

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The reference as a Markdown table (`| setting | default | meaning |`). */
export function settingsTable(docs: readonly SettingDoc[], heading = "variable"): string {
  const out = [`| ${heading} | default | meaning |`, "|---|---|---|"];
  for (const d of docs) {
    const names = d.names.map((n) => `\`${n}\``).join(", ");
    out.push(`| ${names} | ${cell(d.default)} | ${cell(d.meaning)} |`);
  }
  return out.join("\n");
}

/**
 * What is wrong with a reference against the names a provider reads: a name read but not documented, documented
 * but not read, or documented twice. Empty when they agree.
 */
export function referenceProblems(docs: readonly SettingDoc[], read: readonly string[]): string[] {
  const seen = new Map<string, number>();
  for (const d of docs) for (const n of d.names) seen.set(n, (seen.get(n) ?? 0) + 1);
  return [
    ...read.filter((n) => !seen.has(n)).map((n) => `${n} is read but not documented`),
    ...[...seen.keys()].filter((n) => !read.includes(n)).map((n) => `${n} is documented but not read`),
    ...[...seen].filter(([, count]) => count > 1).map(([n]) => `${n} is documented more than once`),
  ];
}
