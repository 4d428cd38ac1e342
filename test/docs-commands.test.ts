/**
 * Every shell command in README.md and every .md under docs/ (docs/providers/ too), run exactly as written, on a
 * copy of the working tree, with only Node.js, npm and the machine's own tools on PATH (no bun: `npx bun …` must
 * fetch it from node_modules, as a newcomer's would).
 *
 * A document is one shell session, in the order it is written: its variables last from block to block, and each
 * block starts at the copy's root, as a newcomer types them (a `cd` inside a block lasts to the block's end).
 * Commands that serve until stopped (the sandbox, the emulators, a manager) start in the background, must print
 * their ready line, and are stopped with SIGINT, as Ctrl-C would, when the document ends. A block whose first line
 * is `# /tmp/<file>` is that file's content and is written there. What is not run is in NOT_RUN, each with why.
 *
 * A new fenced `sh`/`bash`/`shell` block is picked up on its own; one that serves until stopped and is not in
 * SERVERS fails naming its line, so it gets a ready line here.
 */

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
/** Node.js and npm from the machine, and its base tools (kubectl, curl, sed, grep); no bun. */
const PATH = [...new Set([dirname(nodePath()), "/usr/bin", "/bin"])].join(":");

function nodePath(): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir === "" || dir.includes("node_modules")) continue;
    if (existsSync(join(dir, "node")) && existsSync(join(dir, "npm"))) return join(dir, "node");
  }
  return "/usr/bin/node";
}

/** How long one document's session may take: the README builds every executable for two targets. */
const SESSION_MS = 15 * 60_000;

// A document installs, builds and runs servers: minutes on a slow, busy machine.
setDefaultTimeout(SESSION_MS + 60_000);

const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);

export type StepKind = "run" | "serve" | "write" | "not-run";
export interface Step {
  readonly doc: string;
  readonly line: number;
  /** The command as written (continuation lines and here-documents included), or a file's content. */
  readonly text: string;
  readonly kind: StepKind;
  /** First of its block: the session goes back to the copy's root. */
  readonly blockStart: boolean;
  readonly ready?: RegExp;
  readonly reason?: string;
  /** For "write": where. */
  readonly path?: string;
}

/** Long-running commands: what they print once they serve. */
const SERVERS: readonly { match: RegExp; ready: RegExp }[] = [
  { match: /(^|&& )npm start\b|cmd\/main\.ts sandbox\b/, ready: /^stop it: /m },
  { match: /sandbox\/hcloud\/main\.ts\b/, ready: /^HCLOUD_TOKEN=/m },
  { match: /sandbox\/hrobot\/main\.ts\b/, ready: /^Robot webservice emulator at /m },
  { match: /scripts\/proxmox-emulator\/main\.ts\b/, ready: /^Proxmox VE API: /m },
  // A manager run: the executable or the source with a kubeconfig, not one of its sub-commands.
  {
    match:
      /^(npx bun )?\S*(cmd\/main\.ts|cloud-controller-manager(-linux-\w+)?)( (?!doctor|sandbox|completion|version)\S+)* --kubeconfig[= ]/,
    ready: /started "/,
  },
];

/** `npx bun test test/<file>.test.ts …`: files of this suite (not a scaffold's new tests, which are run). */
const SUITE_FILES = /^npx bun test( test\/[\w./-]+\.test\.ts)+\s*(#.*)?$/;

/** Commands not run here, each with the reason. Matched against the command as written. */
const NOT_RUN: readonly { match: RegExp; reason: string }[] = [
  {
    match: /^(npm install && )?npm test\b/,
    reason: "the suite this test is part of (it would run itself); CI runs it (.ci/run)",
  },
  {
    match: SUITE_FILES,
    reason:
      "end-to-end test files of the suite, which runs them on its own; run here again they would double its time (the test below checks that each file exists)",
  },
  {
    match: /^npm run bench\b/,
    reason:
      "benchmarks: minutes of load on the machine (all of them about 11 on two cores) and figures, not pass or fail; a run of their own",
  },
  {
    match: /<[\w-]+>|…/,
    reason: "an outline with placeholders (<name>, …) to fill in, not a command to copy",
  },
  {
    match: /^(sha256sum -c|install |systemctl |journalctl |curl -sk https:\/\/127\.0\.0\.1:10258)/,
    reason:
      "installs into /usr/local/bin, /etc and systemd on the host and talks to that service; the test:deploy tier runs the unit under systemd",
  },
  {
    match: /^(kubeadm |kubectl apply -k deploy\/|kubectl (-n \S+ )?create (clusterrolebinding|rolebinding|secret))/,
    reason:
      "needs a real cluster: kubeadm, and kinds the API emulator does not serve (RBAC, workloads, monitoring objects); the test:real tier applies deploy/kubernetes to a real kube-apiserver",
  },
  {
    match: /^(docker|podman) /,
    reason: "builds or runs a container image; the test:deploy tier builds the image with podman and runs it",
  },
];

const CONSOLE_REASON = "a transcript ($ command, then its output) of a session against a real cluster's files";

/** The fenced shell blocks of a document as steps: one per command, here-documents and `\` lines included. */
export function extractSteps(doc: string, markdown: string): Step[] {
  const lines = markdown.split("\n");
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const lang = open[1] ?? "";
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j] as string)) body.push(lines[j++] as string);
    const first = i + 2;
    i = j;
    const header = /^# (\/tmp\/\S+)\s*$/.exec(body[0] ?? "");
    if (header && !SHELL_LANGUAGES.has(lang)) {
      steps.push({
        doc,
        line: first,
        text: body.slice(1).join("\n"),
        kind: "write",
        path: header[1] as string,
        blockStart: true,
      });
      continue;
    }
    if (!SHELL_LANGUAGES.has(lang)) continue;
    if (lang === "console") {
      for (const [k, l] of body.entries()) {
        if (l.startsWith("$ ")) steps.push(notRun(doc, first + k, l.slice(2), CONSOLE_REASON, k === 0));
      }
      continue;
    }
    steps.push(...commandsOf(doc, first, body));
  }
  return steps;
}

function notRun(doc: string, line: number, text: string, reason: string, blockStart: boolean): Step {
  return { doc, line, text, kind: "not-run", reason, blockStart };
}

function commandsOf(doc: string, first: number, body: readonly string[]): Step[] {
  const steps: Step[] = [];
  for (let k = 0; k < body.length; k++) {
    const start = k;
    let line = body[k] as string;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const parts = [line];
    while (line.endsWith("\\") && k + 1 < body.length) {
      line = body[++k] as string;
      parts.push(line);
    }
    const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(parts.join("\n"));
    if (heredoc) {
      while (k + 1 < body.length && (body[k] as string).trim() !== heredoc[2]) parts.push(body[++k] as string);
    }
    const text = parts.join("\n");
    steps.push(classify(doc, first + start, text, steps.length === 0));
  }
  return steps;
}

function classify(doc: string, line: number, text: string, blockStart: boolean): Step {
  const skip = NOT_RUN.find((n) => n.match.test(text.split("\n")[0] as string));
  if (skip) return notRun(doc, line, text, skip.reason, blockStart);
  const head = text.split("\n")[0] as string;
  // Asking a server for its help ends at once.
  const server = / (--help|-h)\b/.test(head) ? undefined : SERVERS.find((s) => s.match.test(head));
  if (server) return { doc, line, text, kind: "serve", ready: server.ready, blockStart };
  return { doc, line, text, kind: "run", blockStart };
}

/** The session script of one document; it prints `@@ <step> <result>` markers, each step's output in its log. */
export function sessionScript(steps: readonly Step[], logs: string, readySeconds = 300): string {
  const out = [
    "set -m # job control: each server runs in a process group of its own, stopped as Ctrl-C would stop it",
    'root="$PWD"',
    "servers=()",
  ];
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  steps.forEach((step, k) => {
    const log = q(join(logs, `${k}.log`));
    if (step.blockStart) out.push('cd "$root"');
    if (step.kind === "not-run") return;
    out.push(`echo "@@ ${k} start"`);
    if (step.kind === "write") {
      out.push(
        `mkdir -p ${q(dirname(step.path as string))} && printf '%s\\n' ${q(step.text)} > ${q(step.path as string)}`,
      );
      out.push(`echo "@@ ${k} $?"`);
      return;
    }
    if (step.kind === "run") {
      out.push("{", step.text, `} > ${log} 2>&1 < /dev/null`, `echo "@@ ${k} $?"`);
      return;
    }
    const ready = q((step.ready as RegExp).source);
    out.push(
      `: > ${log}`,
      "{",
      step.text,
      `} > ${log} 2>&1 < /dev/null &`,
      `pid=$!; servers+=("${k}:$pid")`,
      `deadline=$((SECONDS + ${readySeconds}))`,
      `until grep -qE ${ready} ${log}; do`,
      `  if ! kill -0 "$pid" 2>/dev/null; then break; fi`,
      '  if [ "$SECONDS" -ge "$deadline" ]; then break; fi',
      "  sleep 0.2",
      "done",
      `if grep -qE ${ready} ${log}; then echo "@@ ${k} 0"; elif kill -0 "$pid" 2>/dev/null; then echo "@@ ${k} no ready line within ${readySeconds}s"; else wait "$pid"; echo "@@ ${k} exited $? before its ready line"; fi`,
    );
  });
  // Ctrl-C to every server's process group, then each must end within a minute.
  out.push(`for s in "\${servers[@]}"; do kill -INT -- "-\${s#*:}" 2>/dev/null; done
for s in "\${servers[@]}"; do
  k="\${s%%:*}"; pid="\${s#*:}"; deadline=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL -- "-$pid"; echo "@@ $k did not stop within 60s of Ctrl-C"; else echo "@@ $k stopped"; fi
done`);
  return `${out.join("\n")}\n`;
}

/**
 * Runs a document's session in `cwd` and returns one problem per step that did not succeed (its line, why, and the
 * end of its output). The session runs in a process session of its own, so that whatever it leaves running is
 * ended by that session's id.
 */
export async function runSession(
  steps: readonly Step[],
  o: { cwd: string; logs: string; env: Record<string, string>; sessionMs?: number; readySeconds?: number },
): Promise<{ problems: string[]; stderr: string }> {
  const sessionMs = o.sessionMs ?? SESSION_MS;
  const script = join(o.logs, "session.sh");
  await writeFile(script, sessionScript(steps, o.logs, o.readySeconds));
  const proc = Bun.spawn(["setsid", "bash", "--noprofile", "--norc", script], {
    cwd: o.cwd,
    env: o.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killSession(proc.pid);
  }, sessionMs);
  const [out, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  killSession(proc.pid);
  const results = new Map<number, string[]>();
  for (const m of out.matchAll(/^@@ (\d+) (.*)$/gm)) {
    const k = Number(m[1]);
    results.set(k, [...(results.get(k) ?? []), m[2] as string]);
  }
  const problems: string[] = [];
  for (const [k, step] of steps.entries()) {
    if (step.kind === "not-run") continue;
    const got = results.get(k) ?? [];
    const want = step.kind === "serve" ? ["start", "0", "stopped"] : ["start", "0"];
    if (JSON.stringify(got) === JSON.stringify(want)) continue;
    const log = existsSync(join(o.logs, `${k}.log`)) ? await readFile(join(o.logs, `${k}.log`), "utf8") : "";
    const why =
      got.length === 0
        ? timedOut
          ? `never started: the session did not end within ${sessionMs / 1000}s (an earlier command still runs: if it serves until stopped, add it to SERVERS)`
          : "never started"
        : got.slice(1).join("; ") ||
          (timedOut
            ? `did not end within the session's ${sessionMs / 1000}s (if it serves until stopped, add it to SERVERS)`
            : "did not end");
    problems.push(
      `${step.doc}:${step.line} ${step.text.split("\n")[0]}\n    ${why}\n    ${log.trim().split("\n").slice(-15).join("\n    ")}`,
    );
  }
  return { problems, stderr };
}

/** Ends every process of the session `sid` (read from /proc: no procps needed on a bare machine). */
function killSession(sid: number): void {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses.
    const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
    if (session !== sid) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
}

const DOCS = async (): Promise<string[]> => {
  const found = ["README.md"];
  // docs/*.md, docs/providers/*.md and any folder added under docs/ later.
  for await (const f of new Bun.Glob("docs/**/*.md").scan({ cwd: ROOT })) found.push(f);
  return [...found.slice(0, 1), ...found.slice(1).sort()];
};

describe("extracting the commands of a document", () => {
  const md = (lang: string, ...body: string[]) => ["text", `\`\`\`${lang}`, ...body, "```", "more"].join("\n");
  test.each([
    [
      "one command per line, comments left out",
      md("sh", "npm install", "# a note", "", "npm run build"),
      [
        ["run", "npm install"],
        ["run", "npm run build"],
      ],
    ],
    ["a line continued with \\", md("sh", "a \\", "  --b"), [["run", "a \\\n  --b"]]],
    [
      "a here-document with its body",
      md("sh", "cat > x <<'EOF'", "k: v", "EOF", "ls"),
      [
        ["run", "cat > x <<'EOF'\nk: v\nEOF"],
        ["run", "ls"],
      ],
    ],
    ["a server", md("bash", "npm start -- --dir=/tmp/x"), [["serve", "npm start -- --dir=/tmp/x"]]],
    [
      "a manager run from source",
      md("sh", "npx bun cmd/main.ts --cloud-provider=x --kubeconfig=/k"),
      [["serve", "npx bun cmd/main.ts --cloud-provider=x --kubeconfig=/k"]],
    ],
    [
      "a sub-command's help is no server",
      md("sh", "cloud-controller-manager doctor --help"),
      [["run", "cloud-controller-manager doctor --help"]],
    ],
    [
      "a server's help is no server",
      md("sh", "npm start -- --help   # flags"),
      [["run", "npm start -- --help   # flags"]],
    ],
    [
      "a test file of the suite, not run again",
      md("sh", "npx bun test test/proxmox.e2e.test.ts"),
      [["not-run", "npx bun test test/proxmox.e2e.test.ts"]],
    ],
    [
      "a new provider's tests, run",
      md("sh", "npx bun test providers/acme   # conformance"),
      [["run", "npx bun test providers/acme   # conformance"]],
    ],
    [
      "the suite itself, not run",
      md("sh", "npm install && npm test   # all"),
      [["not-run", "npm install && npm test   # all"]],
    ],
    [
      "a console transcript, not run",
      md("console", "$ kubectl get nodes", "NAME  STATUS"),
      [["not-run", "kubectl get nodes"]],
    ],
    ["a file to write", md("yaml", "# /tmp/acme.yaml", "machines: []"), [["write", "machines: []"]]],
    ["a yaml block without a path, ignored", md("yaml", "a: 1"), []],
    ["other languages, ignored", md("ts", "const x = 1;"), []],
  ])("%s", (_name, markdown, want) => {
    expect(extractSteps("x.md", markdown).map((s) => [s.kind, s.text])).toEqual(want);
  });

  test("names the line each command starts on", () => {
    const steps = extractSteps("x.md", md("sh", "one", "", "two"));
    expect(steps.map((s) => s.line)).toEqual([3, 5]);
  });
});

describe("a document's session", () => {
  const step = (kind: StepKind, text: string, line: number, more: Partial<Step> = {}): Step => ({
    doc: "x.md",
    line,
    text,
    kind,
    blockStart: false,
    ...more,
  });
  const run = async (steps: Step[], readySeconds = 30, sessionMs = 60_000) => {
    const dir = await mkdtemp(join(tmpdir(), "ccm-docs-session-"));
    try {
      await mkdir(join(dir, "logs"));
      return await runSession(steps, {
        cwd: dir,
        logs: join(dir, "logs"),
        env: { PATH, HOME: dir },
        readySeconds,
        sessionMs,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  test("keeps variables from block to block, and starts each block at the root", async () => {
    const r = await run([
      step("run", "X=1; mkdir sub && cd sub", 1, { blockStart: true }),
      step("run", 'test "$X" = 1 && test "$(basename "$PWD")" = sub', 2),
      step("run", 'test "$X" = 1 && test -d sub', 5, { blockStart: true }),
    ]);
    expect(r.problems).toEqual([]);
  });

  test("names a failing command by its line, with its output", async () => {
    const r = await run([step("run", "echo oops >&2; false", 7), step("run", "true", 8)]);
    expect(r.problems).toEqual(["x.md:7 echo oops >&2; false\n    1\n    oops"]);
  });

  test("starts a server, waits for its ready line, and stops it as Ctrl-C would", async () => {
    const r = await run([
      step("serve", "trap 'exit 0' INT; echo up; while :; do sleep 0.1; done", 3, { ready: /^up$/ }),
      step("run", "true", 4),
    ]);
    expect(r.problems).toEqual([]);
  });

  test("reports a server that ends before its ready line", async () => {
    const r = await run([step("serve", "echo crashed; exit 3", 3, { ready: /^up$/ })]);
    expect(r.problems).toEqual([
      "x.md:3 echo crashed; exit 3\n    exited 3 before its ready line; stopped\n    crashed",
    ]);
  });

  test("reports a server that never prints its ready line", async () => {
    const r = await run([step("serve", "trap 'exit 0' INT; while :; do sleep 0.1; done", 3, { ready: /^up$/ })], 1);
    expect(r.problems).toEqual([
      "x.md:3 trap 'exit 0' INT; while :; do sleep 0.1; done\n    no ready line within 1s; stopped\n    ",
    ]);
  });

  test("ends a command that never ends with the session, naming it and what to do", async () => {
    const marker = `ccm-docs-hang-${process.pid}`;
    const r = await run([step("run", `exec -a ${marker} sleep 3600`, 9), step("run", "true", 10)], 30, 1000);
    expect(r.problems).toEqual([
      `x.md:9 exec -a ${marker} sleep 3600\n    did not end within the session's 1s (if it serves until stopped, add it to SERVERS)\n    `,
      "x.md:10 true\n    never started: the session did not end within 1s (an earlier command still runs: if it serves until stopped, add it to SERVERS)\n    ",
    ]);
    const left = readdirSync("/proc").filter((e) => {
      try {
        return /^\d+$/.test(e) && readFileSync(`/proc/${e}/cmdline`, "utf8").startsWith(marker);
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
  });

  test("writes a file step where its header says", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ccm-docs-write-"));
    try {
      const r = await run([
        step("write", "a: 1", 1, { path: join(dir, "f.yaml") }),
        step("run", `grep -qx 'a: 1' ${join(dir, "f.yaml")}`, 2),
      ]);
      expect(r.problems).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("every command in the documentation, run as written", async () => {
  const docs = await DOCS();
  let copy: string;
  let logsRoot: string;
  let ready: Promise<void>;

  beforeAll(() => {
    ready = (async () => {
      copy = await mkdtemp(join(tmpdir(), "ccm-docs-"));
      // CCM_DOCS_LOGS=<folder> keeps every command's output there, to read after the run.
      logsRoot = process.env.CCM_DOCS_LOGS || (await mkdtemp(join(tmpdir(), "ccm-docs-logs-")));
      const listed = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
        cwd: ROOT,
      });
      const files = listed.stdout
        .toString()
        .split("\0")
        .filter((f) => f !== "" && existsSync(join(ROOT, f)));
      for (const f of files) {
        await mkdir(dirname(join(copy, f)), { recursive: true });
        await cp(join(ROOT, f), join(copy, f));
      }
      // The build's cache of Bun runtimes for other targets, if this tree has one: a download saved, nothing else.
      if (existsSync(join(ROOT, ".cache", "bun-runtimes"))) {
        await cp(join(ROOT, ".cache", "bun-runtimes"), join(copy, ".cache", "bun-runtimes"), { recursive: true });
      }
      // `cloud-controller-manager` on PATH, as docs/install.md installs it (from the build the README makes).
      await mkdir(join(copy, ".docs-bin"), { recursive: true });
      await symlink(
        join(copy, "dist", `cloud-controller-manager-${process.platform}-${process.arch}`),
        join(copy, ".docs-bin", "cloud-controller-manager"),
      );
    })();
  });
  afterAll(async () => {
    await ready.catch(() => undefined);
    await rm(copy, { recursive: true, force: true });
    if (!process.env.CCM_DOCS_LOGS) await rm(logsRoot, { recursive: true, force: true });
  });

  test("PATH has node and npm, and no bun", () => {
    expect(Bun.spawnSync(["bash", "-c", "command -v node && command -v npm"], { env: { PATH } }).exitCode).toBe(0);
    expect(Bun.spawnSync(["bash", "-c", "command -v bun"], { env: { PATH } }).exitCode).not.toBe(0);
  });

  const stepsOf = new Map<string, Step[]>();
  for (const doc of docs) stepsOf.set(doc, extractSteps(doc, await readFile(join(ROOT, doc), "utf8")));

  test("the suite's test files the documentation names exist", () => {
    const named = [...stepsOf.values()]
      .flat()
      .filter((s) => SUITE_FILES.test(s.text))
      .flatMap((s) => s.text.split(/\s+/).filter((w) => w.startsWith("test/")));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  test("the documentation has commands to run", () => {
    expect([...stepsOf.values()].flat().filter((s) => s.kind === "run" || s.kind === "serve").length).toBeGreaterThan(
      20,
    );
  });

  for (const doc of docs.filter((d) => (stepsOf.get(d) ?? []).length > 0)) {
    test(`${doc}: every command runs as written, or says why not`, async () => {
      const steps = stepsOf.get(doc) ?? [];
      for (const s of steps.filter((x) => x.kind === "not-run")) {
        console.log(`not run: ${s.doc}:${s.line} ${s.text.split("\n")[0]} — ${s.reason}`);
        expect(s.reason ?? "").not.toBe("");
      }
      if (!steps.some((s) => s.kind !== "not-run")) return;
      await ready;
      const logs = join(logsRoot, doc.replaceAll("/", "_"));
      await mkdir(logs, { recursive: true });
      // Paths under /tmp the document names are its own: start from none, leave none.
      const tmpPaths = [...new Set(steps.flatMap((s) => [...s.text.matchAll(/\/tmp\/[\w.-]+/g)].map((m) => m[0])))];
      const clean = () => Promise.all(tmpPaths.map((p) => rm(p, { recursive: true, force: true })));
      await clean();
      try {
        const { problems, stderr } = await runSession(steps, {
          cwd: copy,
          logs,
          env: {
            PATH: `${join(copy, ".docs-bin")}:${PATH}`,
            HOME: process.env.HOME ?? "/root",
            TMPDIR: tmpdir(),
            LANG: "C.UTF-8",
          },
        });
        const count = (kind: StepKind) => steps.filter((x) => x.kind === kind).length;
        console.log(
          `${doc}: ${count("run")} run, ${count("serve")} served and stopped, ${count("write")} files written, ${count("not-run")} not run`,
        );
        expect(
          problems.join("\n") + (problems.length > 0 ? `\n(session stderr: ${stderr.trim().slice(-500)})` : ""),
        ).toBe("");
      } finally {
        await clean();
      }
    });
  }
});
