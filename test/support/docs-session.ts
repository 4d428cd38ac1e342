/**
 * Running the shell commands of a document as a newcomer types them (test/docs-commands.test.ts): extracting them
 * from its fenced blocks, telling what runs, what serves until stopped and what is not run (with why), and running
 * them as one shell session.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** How long one document's session may take: the README builds every executable for two targets. */
export const SESSION_MS = 15 * 60_000;

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
  { match: /sandbox\/digitalocean\/main\.ts\b/, ready: /^DIGITALOCEAN_ACCESS_TOKEN=/m },
  { match: /sandbox\/openstack\/main\.ts\b/, ready: /^# control API: .*stop with Ctrl-C$/m },
  { match: /sandbox\/scaleway\/main\.ts\b/, ready: /^SCW_DEFAULT_ZONE=/m },
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
export const SUITE_FILES = /^npx bun test( test\/[\w./-]+\.test\.ts)+\s*(#.*)?$/;

/** Commands not run here, each with the reason. Matched against the command as written. */
const NOT_RUN: readonly { match: RegExp; reason: string }[] = [
  {
    match: /^(npm install && )?npm (test|run test:fast|run test:e2e)\b/,
    reason: "the suite this test is part of, or one of its loops (it would run itself); CI runs it (.ci/run)",
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
    match:
      /^(kubeadm |helm (install|upgrade) |kubectl apply -k deploy\/|kubectl (-n \S+ )?create (clusterrolebinding|rolebinding|secret))/,
    reason:
      "needs a real cluster: kubeadm, and kinds the API emulator does not serve (RBAC, workloads, monitoring objects); the test:real tier applies deploy/kubernetes to a real kube-apiserver, and test/helm-chart.test.ts checks that the chart renders the same objects",
  },
  {
    match: /^(curl -sfL https:\/\/get\.k3s\.io|k3s |talosctl |k0s |clusterctl |helm (get|rollback|push) )/,
    reason:
      "installs or configures a Kubernetes distribution on a host, or talks to a real cluster or registry (k3s, Talos, k0s, Cluster API, a Helm release); the values files beside them are rendered with helm template here",
  },
  {
    match: /^(docker|podman) /,
    reason: "builds or runs a container image; the test:deploy tier builds the image with podman and runs it",
  },
];

/**
 * The paths under /tmp and the fixed loopback ports a document names are a user's: the same steps with each path
 * moved into `tmp` (a folder of the test's own: `/tmp/ccm-pve/x` becomes `<tmp>/ccm-pve/x`) and each port replaced
 * by `port(n)`'s, so a session never touches what a user or a second run on the host has there. Steps that are not
 * run keep their text, as it is printed.
 */
export function ownResources(steps: readonly Step[], tmp: string, port: (documented: number) => number): Step[] {
  const ports = new Map<string, string>();
  const run = (s: Step) => s.kind !== "not-run";
  for (const s of steps.filter(run)) {
    for (const [, n] of s.text.matchAll(/\b(?:127\.0\.0\.1|localhost):(\d{4,5})\b/g)) {
      if (!ports.has(n as string)) ports.set(n as string, String(port(Number(n))));
    }
  }
  const moved = (text: string) => {
    let out = text.replace(/\/tmp\/(?=[\w.-])/g, `${tmp}/`);
    for (const [from, to] of ports) out = out.replace(new RegExp(`(?<![\\w.])${from}\\b`, "g"), to);
    return out;
  };
  return steps.map((s) =>
    run(s) ? { ...s, text: moved(s.text), ...(s.path !== undefined && { path: moved(s.path) }) } : s,
  );
}

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
