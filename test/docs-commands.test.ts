/**
 * Every shell command in README.md and every .md under docs/ (docs/providers/ too), run exactly as written, on a
 * copy of the working tree, with only Node.js, npm and the machine's own tools on PATH (no bun: `npx bun …` must
 * fetch it from node_modules, as a newcomer's would).
 *
 * A document is one shell session, in the order it is written: its variables last from block to block, and each
 * block starts at the copy's root, as a newcomer types them (a `cd` inside a block lasts to the block's end).
 * Commands that serve until stopped (the sandbox, the emulators, a manager) start in the background, must print
 * their ready line, and are stopped with SIGINT, as Ctrl-C would, when the document ends. A block whose first line
 * is `# /tmp/<file>` is that file's content and is written there. What is not run is in NOT_RUN, each with why
 * (test/support/docs-session.ts, with the extraction and the session runner).
 *
 * A new fenced `sh`/`bash`/`shell` block is picked up on its own; one that serves until stopped and is not in
 * SERVERS fails naming its line, so it gets a ready line there.
 */

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  extractSteps,
  ownResources,
  runSession,
  SESSION_MS,
  type Step,
  type StepKind,
  SUITE_FILES,
} from "./support/docs-session.ts";
import { freePort } from "./support/processes.ts";

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

// A document installs, builds and runs servers: minutes on a slow, busy machine.
setDefaultTimeout(SESSION_MS + 60_000);

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

  test("moves the /tmp paths and loopback ports a document names into the test's own, leaving what is not run", () => {
    const steps = [
      ...extractSteps(
        "x.md",
        md(
          "sh",
          "serve --dir=/tmp/ccm-pve --port 8377",
          "curl http://127.0.0.1:8377/v1 -o /tmp/out.json",
          "robot 3 8377",
        ),
      ),
      ...extractSteps("x.md", md("yaml", "# /tmp/acme.yaml", "ca: /tmp/ccm-pve/ca.pem")),
      ...extractSteps("x.md", md("sh", "curl -sk https://127.0.0.1:10258/healthz")),
    ];
    const moved = ownResources(steps, "/own", (n) => n + 1);
    expect(moved.map((s) => [s.kind, s.text, s.path])).toEqual([
      ["run", "serve --dir=/own/ccm-pve --port 8378", undefined],
      ["run", "curl http://127.0.0.1:8378/v1 -o /own/out.json", undefined],
      ["run", "robot 3 8378", undefined],
      ["write", "ca: /own/ccm-pve/ca.pem", "/own/acme.yaml"],
      ["not-run", "curl -sk https://127.0.0.1:10258/healthz", undefined],
    ]);
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
      // The /tmp paths and loopback ports the document names are a user's: the session gets its own.
      const own = await mkdtemp(join(tmpdir(), "ccm-docs-tmp-"));
      try {
        const { problems, stderr } = await runSession(
          ownResources(steps, own, () => freePort()),
          {
            cwd: copy,
            logs,
            env: {
              PATH: `${join(copy, ".docs-bin")}:${PATH}`,
              HOME: process.env.HOME ?? "/root",
              TMPDIR: tmpdir(),
              LANG: "C.UTF-8",
            },
          },
        );
        const count = (kind: StepKind) => steps.filter((x) => x.kind === kind).length;
        console.log(
          `${doc}: ${count("run")} run, ${count("serve")} served and stopped, ${count("write")} files written, ${count("not-run")} not run`,
        );
        expect(
          problems.join("\n") + (problems.length > 0 ? `\n(session stderr: ${stderr.trim().slice(-500)})` : ""),
        ).toBe("");
      } finally {
        await rm(own, { recursive: true, force: true });
      }
    });
  }
});
