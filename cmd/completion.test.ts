import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProviderRegistry } from "../providers/registry.ts";
import { aptInstall } from "../scripts/lib/apt.ts";
import { runCli } from "./command.ts";
import { allInOneSubcommands } from "./subcommands.ts";

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli({
    argv,
    binaryName: "cloud-controller-manager",
    build: { version: "v1.2.3", commit: "abc", buildDate: "2026-11-22" },
    registry: new ProviderRegistry(),
    runManager: async () => {
      throw new Error("completion must not start the manager");
    },
    subcommands: allInOneSubcommands,
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    signal: new AbortController().signal,
    env: {},
  });
  return { code, out, err };
}

let dir: string;
/** A folder holding one file, `kube.yaml`, where the shells complete file names. */
let cwd: string;
const scripts: Record<string, string> = {};
beforeAll(async () => {
  await installShells();
  dir = await mkdtemp(join(tmpdir(), "ccm-completion-"));
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await cli(["completion", shell]);
    expect(r.code).toBe(0);
    scripts[shell] = join(dir, `completion.${shell}`);
    await writeFile(scripts[shell], r.out);
  }
  cwd = join(dir, "cwd");
  await mkdir(cwd);
  await writeFile(join(cwd, "kube.yaml"), "");
  await writeFile(join(dir, "drive.zsh"), ZSH_DRIVER);
}, 600_000); // apt-get may install zsh and fish first
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * zsh and fish are not on every machine: the missing ones are installed from Debian's packages first (as root, with
 * apt), as the kubectl e2e does for kubectl. Why that failed is kept and fails every row of that shell by name.
 */
const SHELL_PATH = `${process.env.PATH ?? ""}:/usr/bin:/bin`;
const shellProblems = new Map<string, string>();
async function installShells(): Promise<void> {
  const missing = ["zsh", "fish"].filter((shell) => !Bun.which(shell, { PATH: SHELL_PATH }));
  if (missing.length === 0) return;
  try {
    await aptInstall(missing, (line) => console.log(`completion test: ${line}`));
  } catch (err) {
    for (const shell of missing) {
      shellProblems.set(
        shell,
        `${shell} is not installed and Debian's ${shell} could not be installed (${(err as Error).message}); install it (apt-get install ${shell}, as root) and run again`,
      );
    }
  }
}
type Row = [name: string, words: string[], want: string[]];

/** One test per row: `complete(words)` offers exactly `want`; a shell that could not be installed fails its rows. */
function completesIn(shell: string, rows: Row[], complete: (words: string[]) => Promise<string[]>): void {
  test.each(rows)("completes %s", async (_name: string, words: string[], want: string[]) => {
    const problem = shellProblems.get(shell);
    if (problem) throw new Error(problem);
    expect((await complete(words)).sort()).toEqual([...want].sort());
  });
}

/**
 * Runs `cmd` in the folder with `kube.yaml`, with a home of its own and a deadline (a hung shell is killed and fails
 * the test); its standard output, carriage returns dropped.
 */
async function runShell(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ZDOTDIR: dir, XDG_DATA_HOME: dir, TERM: "dumb" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0)
    throw new Error(`${cmd[0]} exited ${code} (killed after 60 s if null):\n${stderr}\n${stdout.slice(-2000)}`);
  return stdout.replaceAll("\r", "");
}

/**
 * The zsh side: an interactive zsh in a pseudo-terminal (zpty) loads the script as a user would, then the command
 * line is typed and completed by zsh's own completion system through a key bound to `complete-word`. `compadd` is
 * wrapped to print every candidate (`MATCH:…`) instead of offering it. Each step waits for the next prompt, whose
 * text (READY) the echo of the typed lines never holds; the last for a mark the key's widget prints when done.
 * Arguments: the script, the command line.
 */
const ZSH_DRIVER = `zmodload zsh/zpty || exit 3
zpty -b cc zsh -f -i
step() { zpty -w cc "$1"; zpty -r cc _ '*READY> *' }
step "PROMPT='RE''ADY> '"
step "source \${(q)1}"
step 'compadd() { local -a m; builtin compadd -O m "$@"; print -rl -- "" "MATCH:"\${^m} }'
step 'probe() { zle complete-word; print -r -- "" "DONE$((40+2))" }; zle -N probe; bindkey "^T" probe'
zpty -w -n cc "$2"$'\\C-t'
zpty -r cc out '*DONE42*'
print -r -- "$out"
zpty -d cc
`;

/** What zsh offers for `words` typed after the executable's name (and a space when the last word is ""). */
async function completeInZsh(words: string[]): Promise<string[]> {
  const out = await runShell([
    "zsh",
    "-f",
    join(dir, "drive.zsh"),
    scripts.zsh!,
    ["cloud-controller-manager", ...words].join(" "),
  ]);
  return [...out.matchAll(/^MATCH:(.+)$/gm)].map((m) => m[1]!);
}

/** What fish offers for `words` typed after the executable's name (`complete -C`), without descriptions. */
async function completeInFish(words: string[]): Promise<string[]> {
  const line = ["cloud-controller-manager", ...words].join(" ");
  const out = await runShell([
    "fish",
    "--no-config",
    "-c",
    "source $argv[1]; complete -C $argv[2]",
    scripts.fish!,
    line,
  ]);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t")[0]!);
}

/** Sources the script in bash and completes `words` (the last is the word under the cursor) as bash would. */
async function complete(words: string[]): Promise<string[]> {
  const body = [
    "set -eu",
    `source ${JSON.stringify(scripts.bash)}`,
    // The script registers itself for the executable's name.
    'complete -p cloud-controller-manager | grep -q -- "-F _cloud_controller_manager"',
    `COMP_WORDS=(cloud-controller-manager ${words.map((w) => `'${w}'`).join(" ")})`,
    `COMP_CWORD=${words.length}`,
    "COMPREPLY=()",
    "_cloud_controller_manager",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array expansion, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const proc = Bun.spawn(["bash", "--noprofile", "--norc", "-c", body], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`bash exited ${code}: ${stderr}`);
  return stdout.split("\n").filter((l) => l !== "");
}

describe("completion bash, sourced in bash", () => {
  test.each([
    ["a manager flag from its start", ["--cluster-na"], ["--cluster-name"]],
    [
      "a shorter start to every flag that begins with it",
      ["--leader-elect-re"],
      [
        "--leader-elect-renew-deadline",
        "--leader-elect-resource-lock",
        "--leader-elect-resource-name",
        "--leader-elect-resource-namespace",
        "--leader-elect-retry-period",
      ],
    ],
    ["a sub-command's name", ["sa"], ["sandbox"]],
    ["a sandbox flag", ["sandbox", "--no"], ["--nodes"]],
    ["the sandbox's flags, not the manager's", ["sandbox", "--clu"], []],
    ["doctor's flags, which are the manager's", ["doctor", "--kubeconf"], ["--kubeconfig"]],
    ["the shells after completion", ["completion", ""], ["--help", "bash", "zsh", "fish"]],
    ["nothing of its own after a flag that takes a value (file names instead)", ["--kubeconfig", ""], []],
    ["nothing of its own after --flag= (file names instead)", ["--cloud-config=/tm"], []],
  ])("completes %s", async (_name, words, want) => {
    expect((await complete(words)).sort()).toEqual([...want].sort());
  });
});

// The same completions, in the shells themselves. zsh runs the bash function through bashcompinit, so its rows are
// the bash rows that show zsh's side: it loads, offers flags and sub-commands, and falls back to file names.
describe("completion zsh, loaded in an interactive zsh", () => {
  completesIn(
    "zsh",
    [
      [
        "a manager flag from its start",
        ["--clo"],
        ["--cloud-api-max-answer-mib", "--cloud-config", "--cloud-provider"],
      ],
      ["a sub-command's name", ["sa"], ["sandbox"]],
      ["a sandbox flag, not the manager's", ["sandbox", "--no"], ["--nodes"]],
      ["the shells after completion", ["completion", ""], ["--help", "bash", "zsh", "fish"]],
      ["file names after a flag that takes a value", ["--kubeconfig", ""], ["kube.yaml"]],
    ],
    completeInZsh,
  );
});

describe("completion fish, sourced in fish", () => {
  completesIn(
    "fish",
    [
      [
        "a manager flag from its start",
        ["--clo"],
        ["--cloud-api-max-answer-mib", "--cloud-config", "--cloud-provider"],
      ],
      ["a sub-command's name", ["sa"], ["sandbox"]],
      ["a sandbox flag, not the manager's", ["sandbox", "--no"], ["--nodes"]],
      ["the shells after completion", ["completion", ""], ["bash", "fish", "zsh"]],
      ["file names after a flag that takes a value", ["--kubeconfig", ""], ["kube.yaml"]],
    ],
    completeInFish,
  );
});

describe("completion", () => {
  test.each([
    ["bash", "complete -o default -F _cloud_controller_manager cloud-controller-manager"],
    ["zsh", "autoload -U +X bashcompinit && bashcompinit"],
    ["fish", "complete -c cloud-controller-manager -n '__fish_seen_subcommand_from sandbox' -l nodes -r -F"],
  ])("prints a %s script that registers the executable", async (shell, line) => {
    const r = await cli(["completion", shell]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(line);
  });

  test.each([
    ["no shell", ["completion"], "got none"],
    ["an unknown shell", ["completion", "tcsh"], "got [tcsh]"],
  ])("refuses %s, naming the shells it knows", async (_name, argv, got) => {
    const r = await cli(argv);
    expect(r.code).toBe(1);
    expect(r.err).toContain("completion takes one shell, bash, zsh or fish");
    expect(r.err).toContain(got);
  });
});
