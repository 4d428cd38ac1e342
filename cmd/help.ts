/** `--help` in upstream's shape: flags grouped by section, each with its type and default. */
import { FLAGS, type FlagDef, SECTIONS } from "./flags.ts";

const TYPE_NAMES: Record<FlagDef["kind"], string> = {
  bool: "",
  string: "string",
  int: "int",
  float: "float32",
  duration: "duration",
  list: "strings",
  map: "mapStringBool",
};

export interface HelpInput {
  readonly binaryName: string;
  readonly presetProvider: string | undefined;
  /** The providers this executable holds, for `--cloud-provider`'s line. */
  readonly providers?: readonly string[];
  readonly subcommands: readonly { name: string; description: string }[];
}

export function renderHelp({ binaryName, presetProvider, providers = [], subcommands }: HelpInput): string {
  const out: string[] = [
    "The cloud controller manager runs the cloud-specific control loops of a Kubernetes cluster: it initialises",
    "nodes, removes nodes whose machines are gone, provisions load balancers and programs pod routes.",
    "",
    "Usage:",
    `  ${binaryName} [flags]`,
    ...subcommands.map((s) => `  ${binaryName} ${s.name} [flags]    ${s.description}`),
    "",
  ];
  for (const section of SECTIONS) {
    const flags = FLAGS.filter((f) => f.section === section);
    if (flags.length === 0) continue;
    out.push(`${section[0]?.toUpperCase()}${section.slice(1)} flags:`, "");
    const rows = flags.map((f) => [flagColumn(f), describe(f, presetProvider, providers)] as const);
    const width = Math.max(...rows.map(([left]) => left.length)) + 3;
    for (const [left, right] of rows) out.push(`${left.padEnd(width)}${right}`);
    out.push("");
  }
  return out.join("\n");
}

function flagColumn(f: FlagDef): string {
  const short = f.alias ? `-${f.alias}, ` : "    ";
  const type = TYPE_NAMES[f.kind];
  return `  ${short}--${f.name}${type ? ` ${type}` : ""}`;
}

function describe(f: FlagDef, presetProvider: string | undefined, providers: readonly string[]): string {
  const def = f.name === "cloud-provider" && presetProvider ? presetProvider : f.default;
  const parts = [f.name === "cloud-provider" ? cloudProviderHelp(f.help, presetProvider, providers) : f.help];
  if (def !== "" && !(f.kind === "bool" && def === "false") && f.name !== "help")
    parts.push(`(default ${quote(f, def)})`);
  if (f.deprecated) parts.push(`(DEPRECATED: ${f.deprecated})`);
  if (f.effect === "none" && !f.help.includes("no effect") && !f.help.includes("No effect")) {
    parts.push("[accepted for compatibility; no effect]");
  }
  return parts.join(" ");
}

function quote(f: FlagDef, def: string): string {
  if (f.kind === "string") return `"${def}"`;
  if (f.kind === "list") return `[${def}]`;
  return def;
}

/** The providers this executable really holds: a per-provider one runs its own or the composite, nothing else. */
function cloudProviderHelp(help: string, presetProvider: string | undefined, providers: readonly string[]): string {
  if (providers.length === 0) return help;
  if (!presetProvider) return `${help} One of: ${providers.join(", ")}.`;
  const others = providers.filter((p) => p !== presetProvider && p !== "composite");
  if (!providers.includes("composite") || others.length === 0) return help;
  return `${help} Also "composite", to compose ${presetProvider} with ${others.join(", ")} (docs/composing-providers.md).`;
}
