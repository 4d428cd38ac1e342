/**
 * `node:util` `parseArgs` for the repository's own scripts (the emulators, the bench), with what a user expects of a
 * command: `--help` prints the usage and exits 0; a flag it does not take is one line naming it, then the usage, and
 * exit code 2, never a stack trace.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export type ScriptArgs<O extends Options> =
  | { readonly ok: true; readonly values: ReturnType<typeof parseArgs<{ options: O; strict: true }>>["values"] }
  /** What to print and the exit code: the usage on stdout (0), or the problem and the usage on stderr (2). */
  | { readonly ok: false; readonly code: 0 | 2; readonly stdout: string; readonly stderr: string };

export function parseScriptArgs<O extends Options>(
  name: string,
  usage: string,
  argv: readonly string[],
  options: O,
): ScriptArgs<O> {
  if (argv.includes("--help") || argv.includes("-h")) return { ok: false, code: 0, stdout: `${usage}\n`, stderr: "" };
  try {
    const { values } = parseArgs({ args: [...argv], options, strict: true });
    return { ok: true, values };
  } catch (err) {
    // parseArgs' messages run on with advice for `--`; the first sentence names the flag.
    const message = (err instanceof Error ? err.message : String(err)).split(/\. /)[0]?.replace(/\.$/, "");
    return { ok: false, code: 2, stdout: "", stderr: `${name}: ${message}\n${usage}\n` };
  }
}
