import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProviderRegistry } from "../providers/registry.ts";
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
let script: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ccm-completion-"));
  const r = await cli(["completion", "bash"]);
  expect(r.code).toBe(0);
  script = join(dir, "completion.bash");
  await writeFile(script, r.out);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Sources the script in bash and completes `words` (the last is the word under the cursor) as bash would. */
async function complete(words: string[]): Promise<string[]> {
  const body = [
    "set -eu",
    `source ${JSON.stringify(script)}`,
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
