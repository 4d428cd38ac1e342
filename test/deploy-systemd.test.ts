/**
 * The systemd unit in deploy/systemd/: what it passes, how hard systemd rates its sandbox, and whether the
 * executable's real system calls and sockets fit inside it.
 *
 * The checks that need tools skip with the reason in their name when a tool is missing. To have them all on a
 * Debian or Ubuntu machine: `apt-get install -y systemd strace` (systemd brings systemd-analyze; no running
 * systemd is needed).
 */
import { describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FLAGS_BY_NAME } from "../cmd/flags.ts";
import { executable } from "./support/executables.ts";

const DIR = resolve(import.meta.dir, "..", "deploy", "systemd");
const UNIT = join(DIR, "cloud-controller-manager.service");
const ENV_EXAMPLE = join(DIR, "cloud-controller-manager.env.example");
/** The rating the issue asks for; systemd prints 0.0 (locked down) to 10.0 (exposed). */
const MAX_EXPOSURE = 2.0;

/** Every `Key=value` of a unit file, in order, by key (systemd accumulates repeated keys). */
function unitSettings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of text.replace(/\\\n/g, " ").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";") || line.startsWith("[")) continue;
    const eq = line.indexOf("=");
    const key = line.slice(0, eq).trim();
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return out;
}

const flagNames = (args: string): string[] =>
  args
    .split(/\s+/)
    .filter((a) => a.startsWith("--"))
    .map((a) => a.slice(2).split("=")[0] ?? "");

/** Why a tool cannot be used here, or undefined when it can. */
function missing(tool: string, probe: string[], install: string): string | undefined {
  if (!Bun.which(tool)) return `${tool} is not installed (${install})`;
  const r = Bun.spawnSync(probe, { stdout: "ignore", stderr: "ignore" });
  return r.exitCode === 0 ? undefined : `${tool} does not work here: \`${probe.join(" ")}\` exited ${r.exitCode}`;
}

const noAnalyze = missing("systemd-analyze", ["systemd-analyze", "--version"], "apt-get install -y systemd");
const noStrace = missing("strace", ["strace", "-f", "-o", "/dev/null", "true"], "apt-get install -y strace");
/** A test that is reported as skipped, with the reason in its name, when `reason` is set. */
const testUnless = (reason: string | undefined) => (name: string, fn: () => Promise<void>, timeout?: number) =>
  test.skipIf(reason !== undefined)(reason ? `${name} [skipped: ${reason}]` : name, fn, timeout);

async function run(cmd: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}

/** The system calls of a `systemd-analyze syscall-filter` set, nested sets expanded. */
async function syscallSet(name: string, seen = new Set<string>()): Promise<Set<string>> {
  const out = new Set<string>();
  if (seen.has(name)) return out;
  seen.add(name);
  const r = await run(["systemd-analyze", "syscall-filter", name]);
  if (r.code !== 0) throw new Error(`systemd-analyze syscall-filter ${name}: ${r.stderr}`);
  for (const line of r.stdout.split("\n").slice(1)) {
    const item = line.trim();
    if (!/^@?[a-z0-9_-]+$/.test(item)) continue;
    for (const call of item.startsWith("@") ? await syscallSet(item, seen) : [item]) out.add(call);
  }
  return out;
}

describe("the systemd unit", () => {
  test("takes the kubeconfig and cloud-config as credentials, never as secrets on the command line", async () => {
    const s = unitSettings(await readFile(UNIT, "utf8"));
    expect(s.get("LoadCredential")).toEqual([
      "kubeconfig:/etc/cloud-controller-manager/kubeconfig",
      "cloud-config:/etc/cloud-controller-manager/cloud-config",
    ]);
    const exec = s.get("ExecStart")?.join(" ") ?? "";
    expect(exec).toContain("--kubeconfig=%d/kubeconfig");
    expect(exec).toContain("--cloud-config=%d/cloud-config");
    expect(exec).not.toMatch(/token|password|secret/i);
    expect(s.get("Environment")).toEqual(["NODE_USE_SYSTEM_CA=1"]);
    for (const name of flagNames(exec)) expect(FLAGS_BY_NAME.has(name)).toBe(true);
  });

  test("leaves MemoryDenyWriteExecute off, because JavaScriptCore's JIT maps writable and executable memory", async () => {
    const s = unitSettings(await readFile(UNIT, "utf8"));
    expect(s.get("MemoryDenyWriteExecute")).toBeUndefined();
    expect(s.get("DynamicUser")).toEqual(["yes"]);
    expect(s.get("CapabilityBoundingSet")).toEqual([""]);
    expect(s.get("RestrictAddressFamilies")).toEqual(["AF_INET AF_INET6 AF_UNIX"]);
  });

  test("the example environment file names only known flags, and not the two the unit passes itself", async () => {
    const text = await readFile(ENV_EXAMPLE, "utf8");
    const args = /^CCM_ARGS="([^"]*)"$/m.exec(text)?.[1];
    expect(args).toBeDefined();
    const names = flagNames(args ?? "");
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect({ name, known: FLAGS_BY_NAME.has(name) }).toEqual({ name, known: true });
    expect(names).not.toContain("kubeconfig");
    expect(names).not.toContain("cloud-config");
  });

  testUnless(noAnalyze)(`rates ${MAX_EXPOSURE.toFixed(1)} or better in systemd-analyze security`, async () => {
    const r = await run(["systemd-analyze", "security", "--offline=yes", "--no-pager", UNIT]);
    const level = /Overall exposure level for .*: (\d+\.\d+)/.exec(r.stdout)?.[1];
    expect(level).toBeDefined();
    console.log(`systemd-analyze security: overall exposure ${level} (the lower the better; at most ${MAX_EXPOSURE})`);
    expect(Number(level)).toBeLessThanOrEqual(MAX_EXPOSURE);
  });

  testUnless(noAnalyze)("has no setting systemd-analyze verify complains about", async () => {
    // verify also checks that ExecStart's program exists; on this machine it is elsewhere.
    const dir = await mkdtemp(join(tmpdir(), "ccm-unit-"));
    try {
      const unit = join(dir, "cloud-controller-manager.service");
      const text = await readFile(UNIT, "utf8");
      await writeFile(unit, text.replaceAll("/usr/local/bin/cloud-controller-manager", process.execPath));
      const r = await run(["systemd-analyze", "verify", "--man=no", unit]);
      expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 0, stderr: "" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  testUnless(noAnalyze ?? noStrace)(
    "allows every system call and socket family a sandbox run makes",
    async () => {
      const s = unitSettings(await readFile(UNIT, "utf8"));
      const filters = s.get("SystemCallFilter") ?? [];
      const allowed = new Set<string>();
      const denied = new Set<string>();
      for (const f of filters) {
        const target = f.startsWith("~") ? denied : allowed;
        for (const name of f.replace(/^~/, "").split(/\s+/)) {
          for (const call of name.startsWith("@") ? await syscallSet(name) : [name]) target.add(call);
        }
      }
      const families = new Set((s.get("RestrictAddressFamilies")?.[0] ?? "").split(/\s+/));

      const dir = await mkdtemp(join(tmpdir(), "ccm-strace-"));
      try {
        const trace = join(dir, "trace");
        const exe = await executable();
        const r = await run([
          "strace",
          "-f",
          "-qq",
          "-o",
          trace,
          exe,
          "sandbox",
          "--exit-when-ready",
          "--nodes=3",
          "--services=1",
          `--dir=${join(dir, "sandbox")}`,
        ]);
        expect(r.code).toBe(0);
        const text = await readFile(trace, "utf8");
        const used = new Set([...text.matchAll(/^\d+ +([a-z0-9_]+)\(/gm)].map((m) => m[1] ?? ""));
        const refused = [...used].filter((c) => !allowed.has(c) || denied.has(c)).sort();
        console.log(`strace: ${used.size} distinct system calls in a sandbox run`);
        expect(refused).toEqual([]);
        const opened = new Set([...text.matchAll(/socket\((AF_[A-Z0-9]+)/g)].map((m) => m[1] ?? ""));
        expect([...opened].filter((f) => !families.has(f))).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
