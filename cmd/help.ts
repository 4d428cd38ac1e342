/**
 * `--help` in upstream's shape: flags grouped by section, each with its type and default; and the help of each
 * sub-command, from its citty argument definitions (or, for one that takes the manager's flags, those).
 */
import type { ArgsDef, CommandDef } from "citty";
import { knownFeatureLines } from "./feature-gates.ts";
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
  readonly subcommands: readonly Pick<CommandSpec, "name" | "description" | "positionals" | "usage">[];
}

export function renderHelp({ binaryName, presetProvider, providers = [], subcommands }: HelpInput): string {
  const usage = subcommands.map((s) => [`  ${binaryName} ${s.name} ${usageOf(s)}`, s.description] as const);
  const width = Math.max(0, ...usage.map(([left]) => left.length)) + 3;
  const out: string[] = [
    "The cloud controller manager runs the cloud-specific control loops of a Kubernetes cluster: it initialises",
    "nodes, removes nodes whose machines are gone, provisions load balancers and programs pod routes.",
    "",
    "Usage:",
    `  ${binaryName} [flags]`,
    ...usage.map(([left, right]) => `${left.padEnd(width)}${right}`),
    "",
    `Each sub-command answers --help. Shell completion: ${binaryName} completion bash|zsh|fish.`,
    "",
    ...renderFlagSections(presetProvider, providers),
  ];
  return out.join("\n");
}

const usageOf = (s: Pick<CommandSpec, "positionals" | "usage">): string =>
  s.usage ?? s.positionals?.join("|") ?? "[flags]";

/** The manager's flags, one block per section. */
export function renderFlagSections(
  presetProvider: string | undefined,
  providers: readonly string[],
  leaveOut: readonly string[] = [],
): string[] {
  const out: string[] = [];
  for (const section of SECTIONS) {
    const flags = FLAGS.filter((f) => f.section === section && !leaveOut.includes(f.name));
    if (flags.length === 0) continue;
    out.push(`${section[0]?.toUpperCase()}${section.slice(1)} flags:`, "");
    const rows = flags.map((f) => [flagColumn(f), describe(f, presetProvider, providers)] as const);
    const width = Math.max(...rows.map(([left]) => left.length)) + 3;
    for (const [left, right] of rows) {
      const [first, ...more] = right.split("\n");
      out.push(`${left.padEnd(width)}${first}`, ...more.map((line) => `${" ".repeat(width)}${line}`));
    }
    out.push("");
  }
  return out;
}

/** One flag of a sub-command, for its help and for shell completion. */
export interface FlagSpec {
  readonly name: string;
  readonly alias?: string;
  readonly takesValue: boolean;
  /** The value's kind in help (`int`, `string`); default `string`. */
  readonly valueHint?: string;
  readonly default?: string;
  readonly description: string;
}

/** What help and completion know of a command. */
export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** Words it takes as arguments (`completion bash|zsh|fish`). */
  readonly positionals?: readonly string[];
  /** What follows the command's name in usage lines; default its positionals, or `[flags]`. */
  readonly usage?: string;
  /** It takes the manager's own flags (`doctor`): its help lists them. */
  readonly managerFlags?: boolean;
}

/** The manager's flags as completion sees them. */
export const managerFlagSpecs: readonly FlagSpec[] = FLAGS.map((f) => ({
  name: f.name,
  ...(f.alias && { alias: f.alias }),
  takesValue: f.kind !== "bool" && f.name !== "version",
  default: f.default,
  description: f.help,
}));

/**
 * A citty command as help and completion see it. A command without citty arguments parses the manager's flags
 * itself (`doctor`); `-h`/`--help` are answered before any command runs, so every command has them.
 */
// biome-ignore lint/suspicious/noExplicitAny: each citty command is generic over its own args
export function commandSpec(name: string, def: CommandDef<any>): CommandSpec {
  const meta = (def.meta ?? {}) as { description?: string };
  const args = (def.args ?? undefined) as ArgsDef | undefined;
  const help: FlagSpec = { name: "help", alias: "h", takesValue: false, description: `Help for ${name}.` };
  if (!args) {
    return {
      name,
      description: String(meta.description ?? ""),
      flags: [...managerFlagSpecs.filter((f) => f.name !== "help" && f.name !== "version"), help],
      managerFlags: true,
    };
  }
  const flags: FlagSpec[] = Object.entries(args)
    .filter(([, a]) => a.type !== "positional")
    .map(([flag, a]) => ({
      name: flag,
      ...("alias" in a && typeof a.alias === "string" && { alias: a.alias }),
      takesValue: a.type !== "boolean",
      // citty's values are strings; one whose default is a whole number takes one.
      ...(a.type !== "boolean" && {
        valueHint: "valueHint" in a && a.valueHint ? a.valueHint : /^\d+$/.test(String(a.default)) ? "int" : "string",
      }),
      ...(a.default !== undefined && { default: String(a.default) }),
      description: a.description ?? "",
    }));
  return { name, description: String(meta.description ?? ""), flags: [...flags, help] };
}

export function renderCommandHelp(
  binaryName: string,
  spec: CommandSpec,
  presetProvider: string | undefined,
  providers: readonly string[],
): string {
  const usage = usageOf(spec);
  const out = [
    `${spec.description[0]?.toUpperCase() ?? ""}${spec.description.slice(1)}.`,
    "",
    "Usage:",
    `  ${binaryName} ${spec.name} ${usage}`,
    "",
  ];
  if (spec.managerFlags) {
    out.push(
      `It takes the same flags as ${binaryName} itself: give it the ones the manager runs with.`,
      "",
      ...renderFlagSections(presetProvider, providers, ["version", "help"]),
      "Global flags:",
      "",
      `  -h, --help   Help for ${spec.name}.`,
      "",
    );
    return out.join("\n");
  }
  out.push("Flags:");
  const rows = spec.flags.map((f) => {
    const short = f.alias ? `-${f.alias}, ` : "    ";
    const left = `  ${short}--${f.name}${f.takesValue ? ` ${f.valueHint ?? "string"}` : ""}`;
    const def = f.default !== undefined && f.default !== "" && f.default !== "false" ? ` (default ${f.default})` : "";
    return [left, `${f.description}${def}`] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  for (const [left, right] of rows) out.push(`${left.padEnd(width)}${right}`);
  out.push("");
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
  // Upstream lists the alpha and beta gates under the flag, one a line.
  if (f.name === "feature-gates") parts.push(`Options are:\n${knownFeatureLines().join("\n")}`);
  if (def !== "" && !(f.kind === "bool" && def === "false") && f.name !== "help")
    parts.push(`(default ${quote(f, def)})`);
  if (f.deprecated) parts.push(`(DEPRECATED: ${f.deprecated})`);
  if (f.effect === "none") parts.push(`[accepted for compatibility; no effect here: ${f.reason}]`);
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
