/**
 * The compiled host executables for end-to-end tests: the ones `npm test` built (CCM_TEST_BIN_DIR), or a build
 * made once per test process into a temporary folder when a test file runs on its own. That folder (about 550 MB)
 * is removed when the test process ends, however it ends.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../scripts/build.ts";

let dir: Promise<string> | undefined;

export const hostSuffix = `${process.platform}-${process.arch}`;

export function executablesDir(): Promise<string> {
  dir ??= (async () => {
    const given = process.env.CCM_TEST_BIN_DIR;
    if (given) return given;
    const out = await mkdtemp(join(tmpdir(), "ccm-bin-"));
    removeWhenGone(process.pid, out);
    await build([`--target=${hostSuffix}`, `--outdir=${out}`, "--version=v0.0.0-test"]);
    return out;
  })();
  return dir;
}

/**
 * Removes `dir` once process `pid` has ended. bun test runs no `exit` handler and a file-level `afterAll` cannot
 * know whether another file of the same run still needs the build, so a detached shell waits for the process.
 */
function removeWhenGone(pid: number, dir: string): void {
  const watch = 'while kill -0 "$0" 2>/dev/null; do sleep 2; done; rm -rf "$1"';
  spawn("sh", ["-c", watch, String(pid), dir], { detached: true, stdio: "ignore" }).unref();
}

/** Path of `cloud-controller-manager` (all-in-one) or `<provider>-cloud-controller-manager` for the host. */
export async function executable(provider?: string): Promise<string> {
  const name = provider ? `${provider}-cloud-controller-manager` : "cloud-controller-manager";
  return join(await executablesDir(), `${name}-${hostSuffix}`);
}

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run an executable to completion in `cwd` (a folder with no node_modules by default). */
export async function runExecutable(
  path: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  const cwd = opts.cwd ?? (await mkdtemp(join(tmpdir(), "ccm-cwd-")));
  try {
    const proc = Bun.spawn([path, ...args], {
      cwd,
      env: opts.env ?? { PATH: "/usr/bin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout, stderr };
  } finally {
    // The empty folder made for this run only; a test that passes its own cwd keeps it.
    if (opts.cwd === undefined) await rm(cwd, { recursive: true, force: true });
  }
}
