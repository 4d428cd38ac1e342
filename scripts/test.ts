/**
 * `npm test`: the whole suite, as CI runs it — lint, type check, build of the host executable the end-to-end
 * tests start, and every test (`bun test`: unit tests beside the code, end-to-end tests in test/).
 * Ends with one line `N passed, N failed` (lint, type check and build count as one check each).
 */

import { resolve } from "node:path";
import { $ } from "bun";

const ROOT = resolve(import.meta.dir, "..");
const bin = (name: string) => resolve(ROOT, "node_modules", ".bin", name);
let passed = 0;
let failed = 0;

async function check(name: string, run: () => Promise<{ exitCode: number }>): Promise<boolean> {
  const started = performance.now();
  const { exitCode } = await run();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${exitCode === 0 ? "ok  " : "FAIL"} ${name} (${seconds}s)`);
  if (exitCode === 0) passed++;
  else failed++;
  return exitCode === 0;
}

await check("lint (biome)", () => $`${bin("biome")} check .`.cwd(ROOT).nothrow());
await check("type check (tsc)", () => $`${bin("tsc")} --noEmit -p .`.cwd(ROOT).nothrow());
const testBin = resolve(ROOT, "build", "test-bin");
const built = await check("build of the host executables", () =>
  $`${process.execPath} scripts/build.ts --target=${`${process.platform}-${process.arch}`} --outdir=${testBin} --version=v0.0.0-test`
    .cwd(ROOT)
    .nothrow(),
);

const extra = process.argv.slice(2);
// A slow, busy CI machine: a generous per-test timeout; tests wait on conditions, never on sleeps.
const proc = Bun.spawn([process.execPath, "test", "--timeout=120000", ...extra], {
  cwd: ROOT,
  env: { ...process.env, ...(built ? { CCM_TEST_BIN_DIR: testBin } : {}) },
  stdout: "inherit",
  stderr: "pipe",
});
// bun test writes results to stderr; echo it and keep the summary counts.
let tail = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  const text = decoder.decode(chunk, { stream: true });
  process.stderr.write(text);
  tail = (tail + text).slice(-4000);
}
const code = await proc.exited;
const pass = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
const fail = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
passed += pass;
failed += fail;
if (code !== 0 && fail === 0) failed++; // the runner itself failed (e.g. a file did not load)
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
