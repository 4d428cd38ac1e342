/**
 * `npm test`: the whole suite, as CI runs it — lint, type check, build of the host executable the end-to-end
 * tests start, and every test (`bun test`: unit tests beside the code, end-to-end tests in test/).
 * Ends with one line `N passed, N failed` (lint, type check and build count as one check each).
 */

import { resolve } from "node:path";
import { $ } from "bun";
import { exitsZero, Tally } from "./lib/test-tally.ts";

const ROOT = resolve(import.meta.dir, "..");
const bin = (name: string) => resolve(ROOT, "node_modules", ".bin", name);
const tally = new Tally();

await tally.check("lint (biome)", () => exitsZero($`${bin("biome")} check .`.cwd(ROOT).nothrow()));
await tally.check("type check (tsc)", () => exitsZero($`${bin("tsc")} --noEmit -p .`.cwd(ROOT).nothrow()));
const testBin = resolve(ROOT, "build", "test-bin");
const built = await tally.check("build of the host executables", () =>
  exitsZero(
    $`${process.execPath} scripts/build.ts --target=${`${process.platform}-${process.arch}`} --outdir=${testBin} --version=v0.0.0-test`
      .cwd(ROOT)
      .nothrow(),
  ),
);

// A slow, busy CI machine: a generous per-test timeout; tests wait on conditions, never on sleeps.
await tally.bunTest(["--timeout=120000", ...process.argv.slice(2)], {
  cwd: ROOT,
  env: { ...process.env, ...(built ? { CCM_TEST_BIN_DIR: testBin } : {}) },
});
console.log(tally.summary({ skipped: false }));
process.exit(tally.failed === 0 ? 0 : 1);
