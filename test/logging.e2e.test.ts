/**
 * The compiled manager's log lines, against the sandbox, in both formats. Every line it writes to stderr
 * must be a klog text line (header regex) or, with `--logging-format=json`, a JSON object with component-base's keys;
 * nothing it writes may carry the cloud token.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { collectOutput } from "../scripts/lib/processes.ts";
import { managerCommand, waitFor } from "./support/processes.ts";
import { startSandbox } from "./support/sandbox.ts";

setDefaultTimeout(120_000);

const KLOG_LINE = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} {1,8}\d+ [^\s\]]+\] \S/;

/**
 * Runs the manager against a fresh sandbox until it has initialised both nodes (at -v=4, so debug and trace lines
 * are written too); what it wrote, and the cloud token it must not have written.
 */
async function stderrOf(extra: string[]): Promise<{ stdout: string; lines: string[]; token: string }> {
  const sandbox = await startSandbox({ nodes: 2 });
  const token = (Bun.YAML.parse(await readFile(sandbox.cloudConfig, "utf8")) as { token: string }).token;
  const proc = Bun.spawn(await managerCommand(sandbox, ["--v=4", "--vmodule=route*=0", ...extra]), {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin" },
  });
  const errText = collectOutput({ stdout: new Response("").body!, stderr: proc.stderr });
  const outText = collectOutput({ stdout: proc.stdout, stderr: new Response("").body! });
  try {
    // Both streams: with --log-text-split-stream the info lines are on stdout.
    await waitFor(() => (`${errText.text()}${outText.text()}`.match(/initialized/g) ?? []).length >= 2, {
      timeoutMs: 60_000,
      message: "both nodes initialised",
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; stderr:\n${errText.text().slice(-3000)}`);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    await Promise.all([errText.drained, outText.drained]);
    await sandbox.stop();
  }
  return {
    stdout: outText.text(),
    lines: errText
      .text()
      .split("\n")
      .filter((l) => l !== ""),
    token,
  };
}

/** Whether `file.ts:N` names a line of a file of this repository. */
function sourceLineExists(caller: string): boolean {
  const m = /^([\w./-]+\.ts):(\d+)$/.exec(caller);
  if (!m || m[1]!.startsWith("../")) return false;
  const path = join(import.meta.dir, "..", m[1]!);
  return existsSync(path) && readFileSync(path, "utf8").split("\n").length >= Number(m[2]);
}

describe("the compiled manager's log lines", () => {
  test("--logging-format=text (the default): every stderr line has klog's header", async () => {
    const { stdout, lines, token } = await stderrOf([]);
    expect(stdout).toBe("");
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.filter((l) => !KLOG_LINE.test(l))).toEqual([]);
    // -v=4 writes the levels above 0 too, and the per-controller sources are there.
    expect(lines.some((l) => /^I.* main\] /.test(l))).toBe(true);
    expect(new Set(lines.map((l) => /([^\s\]]+)\] /.exec(l)?.[1])).size).toBeGreaterThan(2);
    expect(lines.join("\n")).not.toContain(token);
  });

  test("--log-text-split-stream: info lines on stdout, warnings and errors on stderr, all in klog's format", async () => {
    // A compatibility-only flag given makes one warning at start.
    const split = ["--feature-gates=LoggingAlphaOptions=true", "--log-text-split-stream", "--contention-profiling"];
    const { stdout, lines } = await stderrOf(split);
    const out = stdout.split("\n").filter((l) => l !== "");
    expect(out.length).toBeGreaterThan(5);
    expect(out.filter((l) => !KLOG_LINE.test(l) || !l.startsWith("I"))).toEqual([]);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => !KLOG_LINE.test(l) || l.startsWith("I"))).toEqual([]);
    expect(
      lines.some((l) => l.includes("flags accepted for compatibility but without effect here: --contention-profiling")),
    ).toBe(true);
  });

  test("--logging-format=json: every stderr line is an object with ts, msg, caller and v or err", async () => {
    const { stdout, lines, token } = await stderrOf(["--logging-format=json"]);
    expect(stdout).toBe("");
    expect(lines.length).toBeGreaterThan(5);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const bad = records.filter(
      (r) =>
        typeof r.ts !== "number" ||
        typeof r.msg !== "string" ||
        typeof r.logger !== "string" ||
        (typeof r.v !== "number" && typeof r.err !== "string" && r.v !== undefined),
    );
    expect(bad).toEqual([]);
    expect(records.some((r) => typeof r.v === "number" && r.v >= 2)).toBe(true);
    expect(lines.join("\n")).not.toContain(token);
    // caller: a line of one of our .ts files (the executable's embedded source map), or the logger's name where no
    // frame of ours made the call; most lines, and those of the node controller, name a file.
    const notCaller = records.filter(
      (r) => r.caller !== r.logger && !(typeof r.caller === "string" && sourceLineExists(r.caller)),
    );
    expect(notCaller).toEqual([]);
    const named = records.filter((r) => r.caller !== r.logger);
    expect(named.length).toBeGreaterThan(records.length / 2);
    expect(named.some((r) => String(r.caller).startsWith("controllers/node/"))).toBe(true);
  });
});
