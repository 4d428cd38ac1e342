/**
 * The repository's own commands answer `--help` with their usage and exit 0, and a flag they do not take with one
 * line naming it and the usage, exit 2: never a stack trace.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

const run = (script: string, ...args: string[]) => {
  const r = Bun.spawnSync([process.execPath, script, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

test.each([
  ["scripts/proxmox-emulator/main.ts", "npx bun scripts/proxmox-emulator/main.ts"],
  ["sandbox/hcloud/main.ts", "npx bun sandbox/hcloud/main.ts"],
  ["sandbox/scaleway/main.ts", "npx bun sandbox/scaleway/main.ts"],
  ["sandbox/digitalocean/main.ts", "npx bun sandbox/digitalocean/main.ts"],
  ["scripts/bench/index.ts", "npm run bench --"],
])("%s: --help prints the usage, an unknown flag is named with it", (script, invocation) => {
  const help = run(script, "--help");
  expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
  expect(help.stdout).toStartWith(`usage: ${invocation} `);

  const bad = run(script, "--bogus");
  expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 2, stdout: "" });
  const [first, ...rest] = bad.stderr.trimEnd().split("\n");
  expect(first).toMatch(/^[\w ]+: Unknown option '--bogus'$/);
  expect(rest.join("\n")).toBe(help.stdout.trimEnd());
});
