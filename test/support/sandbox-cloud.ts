/**
 * `sandbox --cloud=<name> --controllers=false --exit-when-ready` on the compiled all-in-one, and the command it
 * prints run as printed by a shell, with only the executable (under the name it prints for itself) on PATH: what
 * a user does to run the controllers themselves against a cloud's emulator. With `plan`, the printed command is
 * first run as `cloud-controller-manager plan …` (the first step of a migration), which must exit 2 (changes
 * planned, none made) printing what `plan` matches. Returns the sandbox's output once it exited ready; throws with
 * the outputs' tails otherwise.
 */

import { expect } from "bun:test";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executable } from "./executables.ts";
import { poll, type RunningProcess, spawnCollecting } from "./processes.ts";

export async function runSandboxPrintedCommand(
  cloud: string,
  o: { readonly nodes: number; readonly printed: RegExp; readonly plan?: RegExp },
): Promise<string> {
  const sandbox = spawnCollecting([
    await executable(),
    "sandbox",
    `--cloud=${cloud}`,
    `--nodes=${o.nodes}`,
    "--services=0",
    "--controllers=false",
    "--exit-when-ready",
  ]);
  let ccm: RunningProcess | undefined;
  const bin = await mkdtemp(join(tmpdir(), "ccm-path-"));
  await symlink(await executable(), join(bin, "cloud-controller-manager"));
  try {
    const printed = () => /run the controllers yourself:\n {2}(.+)\n/.exec(sandbox.output())?.[1];
    await poll(() => printed() !== undefined, { message: `the printed command; sandbox said:\n${sandbox.output()}` });
    const line = printed() as string;
    expect(line).toMatch(o.printed);
    if (o.plan) {
      const planLine = line.replace(/(^| )cloud-controller-manager /, "$1cloud-controller-manager plan ");
      const plan = spawnCollecting(["sh", "-c", planLine], { PATH: `${bin}:/usr/bin:/bin` });
      const code = await plan.exited;
      expect({ code, out: plan.output() }).toEqual({ code: 2, out: expect.stringMatching(o.plan) });
    }
    ccm = spawnCollecting(["sh", "-c", line], { PATH: `${bin}:/usr/bin:/bin` });
    const code = await Promise.race([sandbox.exited, ccm.exited.then((c) => `ccm exited ${c}`)]);
    const out = sandbox.output();
    expect({ code, tail: code === 0 ? "" : `${out.slice(-2000)}\n${ccm.output().slice(-2000)}` }).toEqual({
      code: 0,
      tail: "",
    });
    return out;
  } finally {
    // The shell's child first: the manager it started, by its parent's id.
    if (ccm) Bun.spawnSync(["pkill", "-KILL", "-P", String(ccm.proc.pid)]);
    ccm?.proc.kill("SIGKILL");
    sandbox.proc.kill("SIGKILL");
    await rm(bin, { recursive: true, force: true });
  }
}
