/**
 * The manager's flags as a sub-command that takes them (`doctor`, `plan`) reads them: parsed, the per-provider
 * executable's preset provider applied as a run applies it (`presetChoice`), then built into options. The caller
 * reports the errors its own way.
 */
import { type ParsedArgv, parseArgv } from "./argv.ts";
import { presetChoice, type SubcommandEnv } from "./command.ts";
import { buildOptions, type OptionsResult } from "./options.ts";

export interface SubcommandFlags {
  readonly parsed: ParsedArgv;
  /** The preset provider's refusal of another `--cloud-provider`, or none. */
  readonly presetErrors: readonly string[];
  readonly built: OptionsResult;
}

export function readSubcommandFlags(
  env: Pick<SubcommandEnv, "presetProvider" | "registry">,
  argv: readonly string[],
): SubcommandFlags {
  const parsed = parseArgv(argv);
  const values = new Map(parsed.values);
  const preset = env.presetProvider
    ? presetChoice(env.presetProvider, values.get("cloud-provider"), env.registry)
    : undefined;
  if (preset) values.set("cloud-provider", preset.name);
  return { parsed, presetErrors: preset?.error ? [preset.error] : [], built: buildOptions(values) };
}
