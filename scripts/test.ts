/**
 * The test loops (README, docs/contributing.md), each ending with one line `N passed, N failed, N skipped`:
 *
 *   npm run test:fast   every unit test beside the code, files in parallel: the inner loop (about 15 s on 2 cores)
 *   npm run test:e2e    the end-to-end tests in test/ on the compiled host executables (built first), in parallel
 *   npm test            what CI runs: lint, type check, the build, then both, and the 10 slowest files
 *
 * Arguments after `--` go to `bun test`: paths narrow the run (`npm run test:fast -- providers/hcloud`), and any
 * flag passes through (`-t <pattern>`, `--parallel=1`). Files start slowest first, by the durations of the last run
 * (build/test-timings.json) or, on a fresh clone, of the committed scripts/test-timings.json.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { exitsZero, Tally } from "./lib/test-tally.ts";

const ROOT = resolve(import.meta.dir, "..");
const LOOPS = ["all", "fast", "e2e"] as const;
type Loop = (typeof LOOPS)[number];

const [first, ...rest] = process.argv.slice(2);
if (!LOOPS.includes(first as Loop)) {
  console.error(`usage: bun scripts/test.ts ${LOOPS.join("|")} [bun test arguments]; got ${first ?? "nothing"}`);
  process.exit(2);
}
const loop = first as Loop;
const paths = rest.filter((a) => !a.startsWith("-"));
const flags = rest.filter((a) => a.startsWith("-"));

const bin = (name: string) => resolve(ROOT, "node_modules", ".bin", name);
const tally = new Tally();
const started = performance.now();
const durations = new Map<string, number>();

if (loop === "all") {
  await tally.check("lint (biome)", () => exitsZero($`${bin("biome")} check .`.cwd(ROOT).nothrow()));
  await tally.check("type check (tsc)", () => exitsZero($`${bin("tsc")} --noEmit -p .`.cwd(ROOT).nothrow()));
}
if (loop === "all" || loop === "fast") await unitFiles();
if (loop === "all" || loop === "e2e") await endToEndFiles();

report();
console.log(tally.summary({ skipped: true }));
process.exit(tally.failed === 0 ? 0 : 1);

/** Unit files are everywhere but test/; they start no executable, so one worker a core keeps the cores busy. */
async function unitFiles(): Promise<void> {
  const where = paths.length > 0 ? paths : ["."];
  await bunTest([...where, "--path-ignore-patterns=test/**", `--parallel=${availableParallelism()}`]);
}

/**
 * End-to-end files mostly wait on the processes they start, so they run four at a time even on two cores; each
 * makes its own folders, ports and processes.
 */
async function endToEndFiles(): Promise<void> {
  const testBin = resolve(ROOT, "build", "test-bin");
  const built = await tally.check("build of the host executables", () =>
    exitsZero(
      $`${process.execPath} scripts/build.ts --target=${`${process.platform}-${process.arch}`} --outdir=${testBin} --version=v0.0.0-test`
        .cwd(ROOT)
        .nothrow(),
    ),
  );
  if (!built) return;
  const where = paths.length > 0 ? paths : ["./test/"];
  await bunTest([...where, `--parallel=${Math.max(4, availableParallelism())}`], { CCM_TEST_BIN_DIR: testBin });
}

/**
 * One `bun test` run: a slow, busy machine gets a generous per-test timeout (tests wait on conditions, never on
 * sleeps); the durations it measures are kept for the report and for the next run's order.
 */
async function bunTest(args: string[], env: Record<string, string> = {}): Promise<void> {
  const saved = resolve(ROOT, "build", "test-timings.json");
  const hint = existsSync(saved) ? saved : resolve(ROOT, "scripts", "test-timings.json");
  const scratch = await mkdtemp(join(tmpdir(), "ccm-test-timings-"));
  const measured = join(scratch, "timings.json");
  try {
    const ran = await tally.bunTest(
      ["--timeout=120000", `--timings=${measured}`, `--timings=${hint}`, "--update-timings", ...args, ...flags],
      { cwd: ROOT, env: { ...process.env, ...env } },
    );
    const timings = await readTimings(measured);
    // The written file holds the hint's entries too: report only the files this run printed results for.
    for (const file of ran) {
      const ms = timings[file];
      if (ms !== undefined) durations.set(file, ms);
    }
    if (Object.keys(timings).length > 0) {
      const all = { ...(await readTimings(saved)), ...timings };
      await mkdir(resolve(ROOT, "build"), { recursive: true });
      await writeFile(saved, `${JSON.stringify({ version: 1, files: all }, null, 2)}\n`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function readTimings(path: string): Promise<Record<string, number>> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as { files?: Record<string, number> };
    return parsed.files ?? {};
  } catch {
    return {};
  }
}

/** The ten slowest files of this run and the run's own time, so growth shows in every run. */
function report(): void {
  const slowest = [...durations].sort((a, b) => b[1] - a[1]).slice(0, 10);
  const total = (performance.now() - started) / 1000;
  if (slowest.length > 0) {
    console.log(`\nslowest files of ${durations.size} (seconds, each file on its own worker):`);
    for (const [file, ms] of slowest) console.log(`${(ms / 1000).toFixed(1).padStart(7)}  ${file}`);
  }
  console.log(`${loop === "all" ? "npm test" : `test:${loop}`} took ${total.toFixed(0)} s`);
}
