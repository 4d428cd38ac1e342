/**
 * `npm run test:real`: the tier that runs against a real kube-apiserver instead of the emulator — test/real/*.real.ts
 * (a suffix plain `bun test` does not pick up). First the server: built once from Debian's source package (minutes,
 * needs root for apt) or found in the cache; then the host executables; then the tests, in one `bun test`.
 * Ends with one line `N passed, N failed, N skipped` (the server and the executables count as one check each).
 */
import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import { $ } from "bun";
import { ensureKubeApiserver } from "./build.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
let passed = 0;
let failed = 0;

async function check<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  try {
    const value = await run();
    console.log(`ok   ${name} (${seconds()}s)`);
    passed++;
    return value;
  } catch (err) {
    console.log(`FAIL ${name} (${seconds()}s): ${(err as Error).message}`);
    failed++;
    return undefined;
  }
}

const binary = await check("kube-apiserver, built or cached", () =>
  ensureKubeApiserver((line) => console.log(`real-apiserver: ${line}`)),
);
const testBin = resolve(ROOT, "build", "test-bin");
await check("build of the host executables", async () => {
  const r =
    await $`${process.execPath} scripts/build.ts --target=${`${process.platform}-${process.arch}`} --outdir=${testBin} --version=v0.0.0-test`
      .cwd(ROOT)
      .quiet()
      .nothrow();
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
});

let skipped = 0;
// Without the server or the executables every test would fail for the same reason: report that once.
if (binary !== undefined && failed === 0) {
  const files = (await readdir(resolve(ROOT, "test", "real"))).filter((f) => f.endsWith(".real.ts")).sort();
  const proc = Bun.spawn(
    [process.execPath, "test", "--timeout=120000", ...files.map((f) => `./test/real/${f}`), ...process.argv.slice(2)],
    {
      cwd: ROOT,
      env: { ...process.env, CCM_TEST_BIN_DIR: testBin, CCM_REAL_APISERVER_BIN: binary },
      stdout: "inherit",
      stderr: "pipe",
    },
  );
  // bun test writes results to stderr; echo it and keep the summary counts.
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk, { stream: true });
    process.stderr.write(text);
    tail = (tail + text).slice(-4000);
  }
  const code = await proc.exited;
  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(tail)?.[1] ?? 0);
  passed += count("pass");
  failed += count("fail");
  skipped = count("skip");
  if (code !== 0 && count("fail") === 0) failed++; // the runner itself failed (e.g. a file did not load)
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
