/**
 * A provider's settings reference, declared beside its settings (`ProviderSettings.reference`) and generated into
 * its documentation page by `npx bun scripts/gen-docs.ts`, so the page cannot drift from what the provider reads: one
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
 * but not read (nor in `mayDocument`: a section, which then documents every key in it), or documented twice. Empty
 * when they agree.
 */
export function referenceProblems(
  docs: readonly SettingDoc[],
  read: readonly string[],
  mayDocument: readonly string[] = [],
): string[] {
  const seen = new Map<string, number>();
  for (const d of docs) for (const n of d.names) seen.set(n, (seen.get(n) ?? 0) + 1);
  const known = new Set([...read, ...mayDocument]);
  // A documented section documents every key in it: `pool` covers `pool.addresses` and `pool[].name`.
  const covered = (n: string): boolean => {
    for (let at = n.length; at > 0; at = Math.max(n.lastIndexOf(".", at - 1), n.lastIndexOf("[]", at - 1))) {
      if (seen.has(n.slice(0, at))) return true;
    }
    return false;
  };
  return [
    ...read.filter((n) => !covered(n)).map((n) => `${n} is read but not documented`),
    ...[...seen.keys()].filter((n) => !known.has(n)).map((n) => `${n} is documented but not read`),
    ...[...seen].filter(([, count]) => count > 1).map(([n]) => `${n} is documented more than once`),
  ];
}

interface SchemaNode {
  readonly type: string;
  readonly entries?: Readonly<Record<string, SchemaNode>>;
  readonly wrapped?: SchemaNode;
  readonly item?: SchemaNode;
}

const WRAPPERS = new Set(["optional", "exact_optional", "nullable", "nullish", "non_optional", "non_nullable"]);
const OBJECTS = new Set(["object", "strict_object", "loose_object", "object_with_rest"]);

/**
 * The keys a cloud-config schema reads, as its reference names them: `features.network.mode`, `clusters[].url`.
 * `leaves` must each be documented; `containers` (`features`, `clusters`) may be, for what holds of them as a whole.
 */
export function schemaKeys(schema: unknown): { leaves: string[]; containers: string[] } {
  const leaves: string[] = [];
  const containers: string[] = [];
  const walk = (node: SchemaNode, path: string) => {
    let n = node;
    while (WRAPPERS.has(n.type) && n.wrapped) n = n.wrapped;
    if (n.type === "array" && n.item) {
      let item = n.item;
      while (WRAPPERS.has(item.type) && item.wrapped) item = item.wrapped;
      if (OBJECTS.has(item.type)) {
        containers.push(path);
        walk(item, `${path}[]`);
        return;
      }
    }
    if (OBJECTS.has(n.type) && n.entries) {
      if (path !== "") containers.push(path);
      for (const [key, child] of Object.entries(n.entries)) walk(child, path === "" ? key : `${path}.${key}`);
      return;
    }
    leaves.push(path);
  };
  walk(schema as SchemaNode, "");
  return { leaves, containers };
}
