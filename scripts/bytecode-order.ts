/**
 * `npx bun scripts/bytecode-order.ts`: records which functions the manager runs, into scripts/bytecode.order, the
 * profile scripts/build.ts lays the executables' bytecode out by (Bun's profile-guided bytecode layout,
 * `compile.bytecodeOrder`): the functions a run uses come first in the file, so the process maps and decodes less
 * of itself. On the all-in-one that is 2.6 MiB less resident at idle (docs/performance.md).
 *
 * The run is the side-by-side bench's, ours alone (scripts/bench/upstream/, a real kube-apiserver 1.20 built the
 * first time): start-up, 1000 Nodes joining and 100 LoadBalancer Services, with `BUN_BYTECODE_ORDER_OUT` set so each
 * manager process writes its profile on exit; the largest, the run that started up, initialised 1000 Nodes and
 * served its endpoints, is kept (the format is Bun's own; profiles are not merged). It holds hashes of functions'
 * syntax, not source, and a function changed since only moves to the back:
 * record again when much of the manager has changed (`bytecodeOrderStats()` of `bun:jsc` counts the misses).
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
export const BYTECODE_ORDER = join(ROOT, "scripts", "bytecode.order");

if (import.meta.main) {
  const dir = await mkdtemp(join(tmpdir(), "ccm-bytecode-order-"));
  try {
    const bench = Bun.spawn(
      [
        process.execPath,
        join(ROOT, "scripts", "bench", "upstream", "index.ts"),
        "--only-ours",
        "--sizes=1000",
        "--runs=1",
        "--services=100",
        "--level-nodes=0",
      ],
      {
        env: { ...process.env, BUN_BYTECODE_ORDER_OUT: join(dir, "ours-%p.order") },
        stdout: "ignore",
        stderr: "inherit",
      },
    );
    if ((await bench.exited) !== 0) throw new Error(`the bench failed (exit ${bench.exitCode})`);
    const files = (await readdir(dir)).filter((f) => f.endsWith(".order")).map((f) => join(dir, f));
    if (files.length === 0) throw new Error(`the bench's managers wrote no profile into ${dir}`);
    const sized = await Promise.all(files.map(async (f) => ({ f, size: (await stat(f)).size })));
    sized.sort((a, b) => b.size - a.size);
    const chosen = sized[0] as { f: string; size: number };
    await writeFile(BYTECODE_ORDER, await readFile(chosen.f));
    console.log(`${BYTECODE_ORDER}: the largest of ${files.length} profiles, ${chosen.size} bytes`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
