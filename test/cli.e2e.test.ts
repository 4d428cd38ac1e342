/** The compiled executables as an operator first meets them: from another folder, no node_modules beside them. */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLAGS } from "../cmd/flags.ts";
import { discoverProviders } from "../scripts/build.ts";
import { executable, executablesDir, runExecutable } from "./support/executables.ts";
import { spawnCollecting, waitFor } from "./support/processes.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

let allInOne: string;
beforeAll(async () => {
  allInOne = await executable();
}, 300_000);

describe("the all-in-one executable", () => {
  test("lists every upstream flag in --help", async () => {
    const r = await runExecutable(allInOne, ["--help"]);
    expect(r.code).toBe(0);
    for (const f of FLAGS) expect(r.stdout).toContain(`--${f.name}`);
  });

  test("prints the version stamped by the build", async () => {
    const r = await runExecutable(allInOne, ["--version"]);
    expect(r.stdout.trim()).toBe("cloud-controller-manager v0.0.0-test");
  });

  test("exits non-zero for an unknown provider, naming the ones it knows", async () => {
    const shippable = (await discoverProviders()).filter((p) => p.shippable).map((p) => p.name);
    const r = await runExecutable(allInOne, ["--cloud-provider=nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `unknown cloud provider "nope"; this executable knows: ${shippable.join(", ") || "none"}`,
    );
  });

  test("reports both problems of '--concurrent-service-syncs=0 --node-monitor-period=-1s' at once", async () => {
    const r = await runExecutable(allInOne, ["--concurrent-service-syncs=0", "--node-monitor-period=-1s"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--concurrent-service-syncs must be at least 1, got 0");
    expect(r.stderr).toContain('--node-monitor-period must be greater than 0, got "-1s"');
  });

  // A default `bun build --compile` binary parses ./bunfig.toml at start and aborts on a broken one (checked by
  // hand: exit 1, "Expected '=' after a key"); ours must not read it, nor ./.env (switched off together).
  test("ignores bunfig.toml and .env in the working directory", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const cwd = await mkdtemp(join(tmpdir(), "ccm-dotenv-"));
    await writeFile(join(cwd, ".env"), "CCM_SHOULD_NOT_LOAD=1\n");
    await writeFile(join(cwd, "bunfig.toml"), "this is = not toml [\n");
    const r = await runExecutable(allInOne, ["--version"], { cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("a newcomer's first commands", () => {
  test.each([
    ["sandbox", "--help"],
    ["sandbox", "-h"],
    ["doctor", "--help"],
    ["doctor", "-h"],
    ["completion", "--help"],
    ["version", "-h"],
  ])("'%s %s' prints its usage and exits 0 without running", async (sub, flag) => {
    const r = await runExecutable(allInOne, [sub, flag]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage:\n  cloud-controller-manager ${sub} `);
    expect(r.stdout).not.toContain("FAIL");
  });

  test("a sandbox flag error says where its flags are listed", async () => {
    const r = await runExecutable(allInOne, ["sandbox", "--bogus"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: sandbox: unknown flag: --bogus\nRun 'cloud-controller-manager sandbox --help' for its flags.\n",
    );
  });

  test("a sandbox --cloud it has no emulator for is refused naming every cloud it has", async () => {
    const r = await runExecutable(allInOne, ["sandbox", "--cloud=aws"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: sandbox: --cloud must be one of sandbox, hcloud, digitalocean, scaleway, openstack, got "aws"',
    );
  });

  test("--help names the providers the executable knows", async () => {
    const shippable = (await discoverProviders()).filter((p) => p.shippable).map((p) => p.name);
    const r = await runExecutable(allInOne, ["--help"]);
    expect(r.stdout).toContain(`Required. One of: ${[...shippable].sort().join(", ")}.`);
  });

  test.each([
    ["a word for a number", ["--kube-api-qps=fast"], '--kube-api-qps must be a number like 20 or 0.5, got "fast"'],
    [
      "a duration without a unit",
      ["--node-monitor-period=5"],
      '--node-monitor-period needs a unit, like 5s or 5m, got "5"',
    ],
    [
      "a port above the range",
      ["--secure-port=70000"],
      "--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got 70000",
    ],
    [
      "a port below the range",
      ["--secure-port=-1"],
      "--secure-port must be between 0 and 65535, inclusive (0 turns serving off), got -1",
    ],
  ])("names %s as one problem", async (_name, argv, want) => {
    const r = await runExecutable(allInOne, ["--cloud-provider=sandbox", ...argv]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("invalid command line (1 problem)");
    expect(r.stderr).toContain(want);
  });

  test("reports a missing kubeconfig and a provider without its cloud-config together", async () => {
    const r = await runExecutable(allInOne, ["--cloud-provider=sandbox", "--kubeconfig=/nonexistent/kubeconfig"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot start (2 problems)");
    expect(r.stderr).toContain('--kubeconfig "/nonexistent/kubeconfig" does not exist (ENOENT)');
    expect(r.stderr).toContain("Cloud provider could not be initialized");
  });

  test("a missing cloud-config names the file and what to do", async () => {
    const r = await runExecutable(allInOne, ["--cloud-provider=sandbox", "--cloud-config=/nonexistent/cloud.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: --cloud-config "/nonexistent/cloud.yaml" does not exist (ENOENT): pass the path of the sandbox provider\'s configuration file',
    );
  });

  // `npm start` runs the sandbox; its temporary folder holds a kubeconfig and the cloud token.
  test.each(["SIGINT", "SIGTERM"] as const)(
    "the sandbox says how to stop and removes its folder on %s",
    async (signal) => {
      const run = spawnCollecting([allInOne, "sandbox", "--nodes=1", "--services=0"], { TMPDIR: tmpdir() });
      await waitFor(() => run.output().includes("stop it:"), { timeoutMs: 60_000, message: "the sandbox's stop hint" });
      const dir = /stop it: +Ctrl-C \(removes (\S+)\)/.exec(run.output())?.[1];
      expect(dir).toBeDefined();
      expect(existsSync(join(dir as string, "kubeconfig"))).toBe(true);
      run.proc.kill(signal);
      expect(await run.exited).toBe(0);
      expect(existsSync(dir as string)).toBe(false);
    },
  );

  test("the sandbox keeps a folder given with --dir", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ccm-sandbox-dir-"));
    try {
      const run = spawnCollecting([allInOne, "sandbox", "--nodes=1", "--services=0", `--dir=${dir}`]);
      await waitFor(() => run.output().includes("stop it:"), { timeoutMs: 60_000, message: "the sandbox's stop hint" });
      expect(run.output()).toContain("stop it:         Ctrl-C\n");
      run.proc.kill("SIGINT");
      expect(await run.exited).toBe(0);
      expect(existsSync(join(dir, "kubeconfig"))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the build", () => {
  test("makes one executable per shippable provider and the chart, and checksums for all", async () => {
    const dir = await executablesDir();
    const sums = await readFile(join(dir, "SHA256SUMS"), "utf8");
    for (const p of (await discoverProviders()).filter((x) => x.shippable && !x.composesOthers)) {
      const path = await executable(p.name);
      expect(existsSync(path)).toBe(true);
      expect(sums).toContain(`${p.name}-cloud-controller-manager-`);
    }
    expect(sums).toMatch(/^[0-9a-f]{64} {2}cloud-controller-manager-linux-/m);
    // The Helm chart, packaged at the executables' version.
    expect(sums).toMatch(/^[0-9a-f]{64} {2}cloud-controller-manager-0\.0\.0-test\.tgz$/m);
  });

  test("a per-provider executable presets its provider and refuses another", async () => {
    const shippable = (await discoverProviders()).filter((p) => p.shippable && !p.composesOthers);
    for (const p of shippable) {
      const r = await runExecutable(await executable(p.name), ["--cloud-provider=other"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`this executable is built for --cloud-provider=${p.name}`);
    }
  });
});
