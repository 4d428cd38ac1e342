/**
 * `<executable> completion bash|zsh|fish`: a shell completion script for the executable's flags and sub-commands.
 * The script is static (the flag lists are written into it), so completing never starts the executable.
 *
 * After a flag that takes a value, bash and zsh fall back to file names (`--kubeconfig <TAB>`); fish is told
 * which flags take a value.
 */
import type { CommandSpec } from "./help.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export interface CompletionInput {
  readonly binaryName: string;
  /** The command without a sub-command (the manager). */
  readonly root: CommandSpec;
  readonly subcommands: readonly CommandSpec[];
}

export function renderCompletion(shell: Shell, input: CompletionInput): string {
  if (shell === "fish") return fish(input);
  const script = bash(input);
  // zsh runs bash completion functions through bashcompinit, which ships with zsh.
  return shell === "zsh"
    ? `#compdef ${input.binaryName}\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n${script}`
    : script;
}

/** The shell function's name: the executable's name with what a function name may not hold replaced. */
export const completionFunction = (binaryName: string): string => `_${binaryName.replace(/[^A-Za-z0-9_]/g, "_")}`;

const flagWords = (spec: CommandSpec): string[] => spec.flags.flatMap((f) => [`--${f.name}`]);
const valueFlags = (specs: readonly CommandSpec[]): string[] => [
  ...new Set(
    specs.flatMap((s) =>
      s.flags.filter((f) => f.takesValue).flatMap((f) => [`--${f.name}`, ...(f.alias ? [`-${f.alias}`] : [])]),
    ),
  ),
];

function bash({ binaryName, root, subcommands }: CompletionInput): string {
  const fn = completionFunction(binaryName);
  const cases = subcommands.map((s) => {
    const words = [...flagWords(s), ...(s.positionals ?? [])];
    return `    ${s.name}) words="${words.join(" ")}" ;;`;
  });
  const rootWords = [...subcommands.map((s) => s.name), ...flagWords(root)];
  const takesValue = valueFlags([root, ...subcommands]);
  return `# ${shellComment(binaryName)} completion for bash. Load it in this shell with:
#   source <(${binaryName} completion bash)
${fn}() {
  # Under zsh's bashcompinit: arrays indexed from 0, as bash's are.
  [ -n "\${ZSH_VERSION:-}" ] && setopt local_options KSH_ARRAYS
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" sub="" words
  [ "$COMP_CWORD" -gt 0 ] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # A flag's value (the next word, or after "=", which bash splits off): file names (complete -o default).
  case "$prev" in
    ${[...takesValue, "="].join("|")}) COMPREPLY=(); return 0 ;;
  esac
  case "$cur" in
    = | --*=*) COMPREPLY=(); return 0 ;;
  esac
  # A sub-command is only ever the first word.
  [ "$COMP_CWORD" -gt 1 ] && sub="\${COMP_WORDS[1]}"
  case "$sub" in
${cases.join("\n")}
    *) words="${rootWords.join(" ")}" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur" || true))
  return 0
}
complete -o default -F ${fn} ${binaryName}
`;
}

function fish({ binaryName, root, subcommands }: CompletionInput): string {
  const names = subcommands.map((s) => s.name).join(" ");
  const lines = [
    `# ${shellComment(binaryName)} completion for fish. Load it in this shell with:`,
    `#   ${binaryName} completion fish | source`,
    `complete -c ${binaryName} -f`,
    ...subcommands.map(
      (s) =>
        `complete -c ${binaryName} -n 'not __fish_seen_subcommand_from ${names}' -a ${s.name} -d ${fishQuote(s.description)}`,
    ),
  ];
  const flagLine = (condition: string, f: CommandSpec["flags"][number]) =>
    `complete -c ${binaryName} -n '${condition}' -l ${f.name}${f.alias ? ` -s ${f.alias}` : ""}${f.takesValue ? " -r -F" : ""} -d ${fishQuote(f.description)}`;
  for (const f of root.flags) lines.push(flagLine(`not __fish_seen_subcommand_from ${names}`, f));
  for (const s of subcommands) {
    for (const f of s.flags) lines.push(flagLine(`__fish_seen_subcommand_from ${s.name}`, f));
    for (const p of s.positionals ?? []) {
      lines.push(`complete -c ${binaryName} -n '__fish_seen_subcommand_from ${s.name}' -a ${p}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const shellComment = (s: string) => s.replace(/[\r\n]/g, " ");
const fishQuote = (s: string) =>
  `'${s
    .replace(/[\r\n]/g, " ")
    .replace(/\\/g, "\\\\")
    .replace(/'/g, "\\'")}'`;
