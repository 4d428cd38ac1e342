/** What every benchmark receives from the runner. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchCluster, startCluster } from "./cluster.ts";
import { BENCH_LB_POOL } from "./fixtures.ts";
import type { BenchResult, Scale } from "./report.ts";

export interface BenchContext {
  /** The compiled all-in-one. */
  readonly exe: string;
  /** The scales to run, in order. */
  readonly scales: readonly Scale[];
  /** Progress lines (stderr), so the table on stdout stays clean. */
  readonly log: (line: string) => void;
  /** Start-up runs to take the median of. */
  readonly startupRuns: number;
  /** Length of the steady-state window, in seconds. */
  readonly steadySeconds: number;
  /** `--footprint-nodes`: the footprint's Node count instead of its scale's (Services: two fifths of it). */
  readonly footprintNodes?: number | undefined;
}

export interface Benchmark {
  readonly id: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** A fresh emulator and cloud in a new temporary folder, stopped when `body` ends. */
export async function withCluster<T>(body: (cluster: BenchCluster) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "ccm-bench-"));
  const cluster = await startCluster({ dir, addressPool: BENCH_LB_POOL });
  try {
    return await body(cluster);
  } finally {
    await cluster.stop();
  }
}

export const seconds = (ms: number): number => ms / 1000;
