import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExecCredentialSource, ExecPluginError } from "./credentials.ts";
import { processAlive, tempDir, waitFor } from "./testdata/helpers.ts";

const dir = tempDir("kube-credentials-");
afterAll(() => dir.remove());

const CREDENTIAL = '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}';

let seq = 0;
/** A plugin script whose body may use $PIDS, a file it appends the pids it started to. */
function plugin(body: string): { command: string; pids: () => number[] } {
  const n = ++seq;
  const command = join(dir.path, `plugin-${n}.sh`);
  const pidFile = join(dir.path, `plugin-${n}.pids`);
  writeFileSync(command, `#!/bin/sh\nPIDS="${pidFile}"\necho $$ >> "$PIDS"\n${body}\n`);
  chmodSync(command, 0o755);
  const pids = () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number) : []);
  return { command, pids };
}

const source = (command: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  new ExecCredentialSource({ command }, { baseDir: dir.path, now: Date.now, ...opts });

const failure = async (p: Promise<unknown>): Promise<ExecPluginError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ExecPluginError) return err;
    throw err;
  }
  throw new Error("expected the plugin to fail");
};

describe("exec credential plugins", () => {
  test.each([
    ["a plugin that hangs", "sleep 300"],
    ["a plugin that forks a child and waits for it", 'sleep 300 &\necho $! >> "$PIDS"\nwait'],
  ])("kill %s at the timeout, naming it, and leave no process behind", async (_name, body) => {
    const p = plugin(body);
    const err = await failure(source(p.command, { timeoutMs: 300 }).get());
    expect(err.message).toBe(
      `exec plugin ${p.command}: no credential within 0.3s (timed out); killed it and its children`,
    );
    expect(p.pids().length).toBeGreaterThan(0);
    await waitFor(() => !p.pids().some(processAlive), "the plugin's processes to be gone");
  });

  test("kill a running plugin and what it forked when the owner stops", async () => {
    const p = plugin('sleep 300 &\necho $! >> "$PIDS"\nwait');
    const stop = new AbortController();
    const got = failure(source(p.command, { signal: stop.signal }).get());
    await waitFor(() => p.pids().length === 2, "the plugin and its child to start");
    stop.abort();
    expect((await got).message).toContain("stopped with the manager; killed it and its children");
    await waitFor(() => !p.pids().some(processAlive), "the plugin's processes to be gone");
  });

  test("kill what a plugin forked and left running once it has answered", async () => {
    const p = plugin(`sleep 300 &\necho $! >> "$PIDS"\nprintf '%s' '${CREDENTIAL}'`);
    expect(await source(p.command, { timeoutMs: 60_000 }).get()).toEqual({ token: "t" });
    await waitFor(() => !p.pids().some(processAlive), "the forked child to be gone");
  });

  test("start no plugin once the owner has stopped", async () => {
    const p = plugin(`printf '%s' '${CREDENTIAL}'`);
    const stop = new AbortController();
    stop.abort();
    expect((await failure(source(p.command, { signal: stop.signal }).get())).message).toContain("not started");
    expect(p.pids()).toEqual([]);
  });

  test("let one caller stop waiting while the shared run goes on for the others", async () => {
    const p = plugin(`sleep 0.3\nprintf '%s' '${CREDENTIAL}'`);
    const src = source(p.command);
    const impatient = new AbortController();
    const first = src.get(impatient.signal);
    const second = src.get();
    impatient.abort(new Error("gave up"));
    await expect(first).rejects.toThrow("gave up");
    expect(await second).toEqual({ token: "t" });
    expect(p.pids()).toHaveLength(1);
  });
});
