/**
 * `--feature-gates` on the compiled manager: the gates a Go manager's manifest sets start it, the ones with a
 * meaning here take effect, and an unknown one stops it before anything runs.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { executable, runExecutable } from "./support/executables.ts";
import { type RunningProcess, spawnManager, waitFor } from "./support/processes.ts";
import { type Sandbox, startSandbox } from "./support/sandbox.ts";

// End-to-end tests start executables; a slow, busy machine needs room.
setDefaultTimeout(120_000);

let sandbox: Sandbox;
let exe: string;
beforeAll(async () => {
  exe = await executable();
  sandbox = await startSandbox({ nodes: 1 });
}, 300_000);
afterAll(async () => {
  await sandbox?.stop();
});

/** Runs the manager until `done` holds of its output; what it printed by then. */
async function outputUntil(flags: string[], done: (out: string) => boolean, message: string): Promise<string> {
  const manager: RunningProcess = await spawnManager(sandbox, flags);
  try {
    await waitFor(() => done(manager.output()) || manager.proc.exitCode !== null, { timeoutMs: 60_000, message });
    expect(manager.proc.exitCode).toBeNull();
    return manager.output();
  } catch (err) {
    throw new Error(`${(err as Error).message}; output:\n${manager.output().slice(-3000)}`);
  } finally {
    manager.proc.kill("SIGTERM");
    await manager.exited;
  }
}

describe("--feature-gates on the compiled manager", () => {
  test("starts with upstream's component-base gates and initialises the node, warning of what has no effect", async () => {
    const out = await outputUntil(
      ["--feature-gates=AllBeta=true,ContextualLogging=true,KMSv1=false"],
      (o) => o.includes("initialized"),
      "the node initialised",
    );
    expect(out).toContain("--feature-gates=ContextualLogging");
    expect(out).toContain("setting deprecated feature gate KMSv1=false; it will be removed in a future release");
  });

  test("AllAlpha=true turns on the alpha watch-based route reconciliation", async () => {
    const out = await outputUntil(
      ["--feature-gates=AllAlpha=true"],
      (o) => o.includes("reconciling routes"),
      "the route controller started",
    );
    expect(out).toContain("reconciling routes on node changes");
  });

  test("exits 1 for an unknown gate, naming it and pointing at --help", async () => {
    const r = await runExecutable(exe, ["--cloud-provider=sandbox", "--feature-gates=AllBeta=true,Nope=true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--feature-gates: unrecognized feature gate: Nope (--help lists the known ones)");
  });

  test("exits 1 for a locked gate set away from its default", async () => {
    const r = await runExecutable(exe, ["--cloud-provider=sandbox", "--feature-gates=APIServerTracing=false"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot set feature gate APIServerTracing to false, feature is locked to true");
  });

  test("--help lists the alpha and beta gates under --feature-gates, as upstream", async () => {
    const r = await runExecutable(exe, ["--help"]);
    expect(r.code).toBe(0);
    for (const line of [
      "AllAlpha=true|false (ALPHA - default=false)",
      "AllBeta=true|false (BETA - default=false)",
      "ContextualLogging=true|false (BETA - default=true)",
      "CloudControllerManagerWatchBasedRoutesReconciliation=true|false (ALPHA - default=false)",
    ]) {
      expect(r.stdout).toContain(line);
    }
  });
});
