/**
 * Debian packages for the test tiers that need more than Node.js and npm (`test:real`, `test:deploy`): installed
 * with apt when missing, which needs root. Nothing is downloaded any other way.
 */
import { $ } from "bun";

export type Log = (line: string) => void;

export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** Runs `cmd` quietly; a non-zero exit throws with the last 40 lines of its output. */
export async function runChecked(cmd: ReturnType<typeof $>, what: string): Promise<string> {
  const r = await cmd.quiet().nothrow();
  const output = `${r.stdout.toString()}\n${r.stderr.toString()}`.trim();
  if (r.exitCode !== 0) {
    throw new CommandError(`${what} exited with ${r.exitCode}:\n${output.split("\n").slice(-40).join("\n")}`);
  }
  return r.stdout.toString();
}

const installed = async (pkg: string): Promise<boolean> =>
  (await $`dpkg -s ${pkg}`.quiet().nothrow()).stdout.toString().includes("Status: install ok installed");

let updated = false;

/** `apt-get update`, once per process unless `force` (after adding a source list). */
export async function aptUpdate(log: Log, { force = false } = {}): Promise<void> {
  if (updated && !force) return;
  log("apt-get update");
  await runChecked($`apt-get update -q`.env({ ...process.env, DEBIAN_FRONTEND: "noninteractive" }), "apt-get update");
  updated = true;
}

/** `apt-get install` of whichever of `packages` is missing (an `apt-get update` first, once per process). */
export async function aptInstall(packages: readonly string[], log: Log): Promise<void> {
  const missing: string[] = [];
  for (const p of packages) if (!(await installed(p))) missing.push(p);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new CommandError(`missing Debian packages (install them as root): ${missing.join(" ")}`);
  }
  await aptUpdate(log);
  log(`apt-get install ${missing.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  await runChecked($`apt-get install -y -q --no-install-recommends ${missing}`.env(env), "apt-get install");
}
