/**
 * Go-style (pflag) command-line parsing for the upstream flag set: `--name=value`, `--name value`, `--bool`,
 * `--bool=false`, `-v=2`, `-h`. Unknown flags and missing values are errors, as upstream; every problem is
 * collected so the user sees them all at once.
 */
import { FLAGS_BY_NAME, type FlagDef } from "./flags.ts";

export interface ParsedArgv {
  /**
   * Raw string values of the flags given, by flag name: the last one wins for repeated flags, except a map
   * (`--feature-gates`), whose repeats add up as pflag's `MapStringBool` does, joined with commas.
   */
  readonly values: Map<string, string>;
  readonly positionals: string[];
  readonly errors: string[];
}

const aliases = new Map<string, FlagDef>(
  [...FLAGS_BY_NAME.values()].filter((f) => f.alias).map((f) => [f.alias as string, f]),
);

export function parseArgv(argv: readonly string[], flags: ReadonlyMap<string, FlagDef> = FLAGS_BY_NAME): ParsedArgv {
  const values = new Map<string, string>();
  const set = (def: FlagDef, value: string) => {
    const before = values.get(def.name);
    values.set(def.name, def.kind === "map" && before !== undefined ? `${before},${value}` : value);
  };
  const positionals: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const m = /^(--?)([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const [, dashes, name = "", inline] = m;
    const def = dashes === "--" ? flags.get(name) : aliases.get(name);
    if (!def) {
      errors.push(
        dashes === "--" ? `unknown flag: --${name}` : `unknown shorthand flag: '${name[0]}' in ${dashes}${name}`,
      );
      continue;
    }
    if (inline !== undefined) {
      set(def, inline);
    } else if (def.kind === "bool") {
      values.set(def.name, "true");
    } else if (def.name === "version") {
      values.set(def.name, "true");
    } else if (i + 1 < argv.length) {
      set(def, argv[++i] as string);
    } else {
      errors.push(`flag needs an argument: --${def.name}`);
    }
  }
  return { values, positionals, errors };
}
