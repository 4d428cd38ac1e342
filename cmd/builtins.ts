/**
 * What every executable answers before its own commands run: `help [command]`, `-h`/`--help` after any
 * sub-command (its usage and flags; nothing runs), `completion bash|zsh|fish` and `version`.
 */

import type { CliInput, SubcommandEnv } from "./command.ts";
import { renderCompletion, SHELLS } from "./completion.ts";
import { type CommandSpec, commandSpec, type FlagSpec, managerFlagSpecs, renderCommandHelp } from "./help.ts";
import { renderVersion } from "./version.ts";

interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * The exit code when `first` (the first argument) is a built-in command or `rest` asks a sub-command for its help;
 * undefined when the command line is for the manager or a sub-command to run. `rerun` runs another command line.
 */
export function answerBuiltin(
  input: CliInput,
  first: string | undefined,
  rest: readonly string[],
  io: Io,
  rerun: (argv: string[]) => Promise<number>,
): number | Promise<number> | undefined {
  // `help` and `help <command>`, as cobra-built commands (kubectl) answer them.
  if (first === "help") {
    const specs = subcommandSpecs(input);
    const names = specs.map((s) => s.name);
    const [topic, ...more] = rest;
    if (asksForHelp(rest) || topic === "help") {
      const help = specs.find((s) => s.name === "help") as CommandSpec;
      io.stdout(renderCommandHelp(input.binaryName, help, input.presetProvider, input.registry.names()));
      return 0;
    }
    if (more.length > 0 || (topic !== undefined && !names.includes(topic))) {
      io.stderr(`error: help takes at most one command, one of ${names.join(", ")}; got [${rest.join(" ")}]\n`);
      return 1;
    }
    return rerun(topic === undefined ? ["--help"] : [topic, "--help"]);
  }
  const builtin = first !== undefined ? BUILTINS.find((b) => b.name === first) : undefined;
  if (builtin) {
    if (asksForHelp(rest)) {
      io.stdout(renderCommandHelp(input.binaryName, builtin, input.presetProvider, input.registry.names()));
      return 0;
    }
    return builtin.name === "completion" ? runCompletion(input, rest, io) : runVersion(input, rest, io);
  }
  const makeSub = first !== undefined ? input.subcommands?.[first] : undefined;
  if (makeSub && first !== undefined && asksForHelp(rest)) {
    const spec = commandSpec(first, makeSub(subcommandEnv(input)));
    io.stdout(renderCommandHelp(input.binaryName, spec, input.presetProvider, input.registry.names()));
    return 0;
  }
  return undefined;
}

/**
 * `npm start --nodes=5` (no `--`) gives the flags to npm, which warns "Unknown cli config" and hands them on only as
 * `npm_config_*` variables: the command would run without them. Returns the message naming the command meant, or
 * undefined when npm kept none of `spec`'s flags (or npm did not start it).
 */
export function npmKeptFlags(
  spec: CommandSpec,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const event = env.npm_lifecycle_event;
  if (!event) return undefined;
  const given = new Set(argv.map((a) => /^--?(?:no-)?([^=]+)/.exec(a)?.[1]));
  const meant: string[] = [];
  for (const f of spec.flags) {
    const value = env[`npm_config_${f.name.replaceAll("-", "_")}`];
    if (value === undefined || f.name === "help" || given.has(f.name)) continue;
    // npm reads "false" as its boolean false, which it passes on as "".
    if (!f.takesValue) {
      if (value === "true") meant.push(`--${f.name}`);
    } else meant.push(`--${f.name}=${value === "" ? "false" : value}`);
  }
  if (meant.length === 0) return undefined;
  const npm = event === "start" || event === "test" ? `npm ${event}` : `npm run ${event}`;
  return `npm kept ${meant.join(" ")} for itself (options before "--" are npm's); run: ${npm} -- ${[...meant, ...argv].join(" ")}`;
}

export const subcommandEnv = (input: CliInput): SubcommandEnv => ({
  registry: input.registry,
  runManager: input.runManager,
  signal: input.signal,
  build: input.build,
  binaryName: input.binaryName,
  invocation: input.invocation ?? input.binaryName,
  presetProvider: input.presetProvider,
});

const helpFor = (name: string): FlagSpec => ({
  name: "help",
  alias: "h",
  takesValue: false,
  description: `Help for ${name}.`,
});

/** Sub-commands every executable has, answered here without a citty command. */
const BUILTINS: readonly CommandSpec[] = [
  {
    name: "completion",
    description: "print a shell completion script: bash, zsh or fish",
    flags: [helpFor("completion")],
    positionals: SHELLS,
  },
  {
    name: "version",
    description: "print the version and quit",
    flags: [
      {
        name: "raw",
        takesValue: false,
        description: "Print JSON with the commit, build date, runtime and platform.",
      },
      helpFor("version"),
    ],
  },
];

/** Every sub-command of this executable, as help and completion see them. */
export function subcommandSpecs(input: CliInput): CommandSpec[] {
  const env = subcommandEnv(input);
  const own = Object.entries(input.subcommands ?? {}).map(([name, make]) => commandSpec(name, make(env)));
  const named = [...own, ...BUILTINS];
  const help: CommandSpec = {
    name: "help",
    description: "print the help of the manager, or of one command",
    flags: [helpFor("help")],
    positionals: named.map((s) => s.name),
    usage: "[command]",
  };
  return [...named, help];
}

/** `-h`, `--help` or `--help=<not false>` before any `--`. */
function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "-h" || arg === "--help" || arg === "-h=true") return true;
    const m = /^--help=(.*)$/.exec(arg);
    if (m && m[1] !== "false") return true;
  }
  return false;
}

function runCompletion(input: CliInput, args: readonly string[], { stdout, stderr }: Io): number {
  const shell = SHELLS.find((s) => s === args[0]);
  if (!shell || args.length !== 1) {
    stderr(
      `error: completion takes one shell, bash, zsh or fish, got ${args.length === 0 ? "none" : `[${args.join(" ")}]`}; for example: source <(${input.binaryName} completion bash)\n`,
    );
    return 1;
  }
  const root: CommandSpec = { name: input.binaryName, description: "", flags: managerFlagSpecs };
  stdout(renderCompletion(shell, { binaryName: input.binaryName, root, subcommands: subcommandSpecs(input) }));
  return 0;
}

function runVersion(input: CliInput, args: readonly string[], { stdout, stderr }: Io): number {
  const unknown = args.filter((a) => a !== "--raw");
  if (unknown.length > 0) {
    stderr(`error: version takes only --raw, got [${unknown.join(" ")}]\n`);
    return 1;
  }
  stdout(`${renderVersion(input.binaryName, input.build, args.includes("--raw"))}\n`);
  return 0;
}
