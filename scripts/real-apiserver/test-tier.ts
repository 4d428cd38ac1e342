/**
 * `npm run test:real`: the tier that runs against a real kube-apiserver instead of the emulator — test/real/*.real.ts
 * (a suffix plain `bun test` does not pick up). First the server: built once from Debian's source package (minutes,
 * needs root for apt) or found in the cache; then the host executables; then the tests, in one `bun test`.
 * Ends with one line `N passed, N failed, N skipped` (the server and the executables count as one check each).
 */
import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import { $ } from "bun";
import { Tally } from "../lib/test-tally.ts";
import { ensureKubeApiserver } from "./build.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const tally = new Tally();

const binary = await tally.check("kube-apiserver, built or cached", () =>
  ensureKubeApiserver((line) => console.log(`real-apiserver: ${line}`)),
);
const testBin = resolve(ROOT, "build", "test-bin");
await tally.check("build of the host executables", async () => {
  const r =
    await $`${process.execPath} scripts/build.ts --target=${`${process.platform}-${process.arch}`} --outdir=${testBin} --version=v0.0.0-test`
      .cwd(ROOT)
      .quiet()
      .nothrow();
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
});

// Without the server or the executables every test would fail for the same reason: report that once.
if (binary !== undefined && tally.failed === 0) {
  const files = (await readdir(resolve(ROOT, "test", "real"))).filter((f) => f.endsWith(".real.ts")).sort();
  await tally.bunTest(["--timeout=120000", ...files.map((f) => `./test/real/${f}`), ...process.argv.slice(2)], {
    cwd: ROOT,
    env: { ...process.env, CCM_TEST_BIN_DIR: testBin, CCM_REAL_APISERVER_BIN: binary },
  });
}
console.log(tally.summary({ skipped: true }));
process.exit(tally.failed === 0 ? 0 : 1);
