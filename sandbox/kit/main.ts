/**
 * The runnable side of an emulator (`npx bun sandbox/<cloud>/main.ts`): flags parsed with `--help` and a clear
 * exit 2 on a bad one (platform/script-args.ts), the lines a client needs printed (`HCLOUD_ENDPOINT=…`), and a
 * clean stop on SIGINT or SIGTERM. Only this runner exits the process.
 */
import type { ParseArgsConfig } from "node:util";
import { parseScriptArgs, type ScriptArgs } from "../../platform/script-args.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values<O extends Options> = Extract<ScriptArgs<O>, { ok: true }>["values"];

export interface EmulatorMain<O extends Options> {
  /** `hcloud emulator`: starts every error line. */
  readonly name: string;
  /** Starts with `usage: npx bun sandbox/<cloud>/main.ts `. */
  readonly usage: string;
  readonly options: O;
  /** Starts the emulator; the lines to print, and how to stop it. Throw an `Error` naming the flag for bad input. */
  readonly start: (values: Values<O>) => { readonly lines: readonly string[]; stop(): Promise<void> };
}

export function runEmulatorMain<O extends Options>(main: EmulatorMain<O>, argv = process.argv.slice(2)): void {
  const parsed = parseScriptArgs(main.name, main.usage, argv, main.options);
  if (!parsed.ok) {
    process.stdout.write(parsed.stdout);
    process.stderr.write(parsed.stderr);
    process.exit(parsed.code);
  }
  try {
    const running = main.start(parsed.values);
    for (const line of running.lines) console.log(line);
    const stop = () => void running.stop().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  } catch (err) {
    console.error(`${main.name}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
}

/** A flag's whole number from 0 to `max`, or `fallback` when it is not given. */
export function wholeFlag(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > max) {
    throw new Error(`--${flag}: '${text}' is not a whole number up to ${max}`);
  }
  return Number(text);
}
