/**
 * Collects garbage when the resident set grows, so a storm's peak is the live data plus a step, not whatever the
 * collector let pile up. A join storm decodes every response and watch event whole (a kubelet-shaped Node is 8–15 KiB
 * of JSON, and each initialisation sees four of them); almost all of it is garbage a moment later, but JavaScriptCore
 * collects by its own heap's growth and does not count the allocator's pages outside it (response bodies, strings),
 * so the resident set could climb tens of MiB above the live data before a full collection ran. Go's runtime paces its
 * collector on the heap it actually allocated (`GOGC`); this is the same idea read off the kernel's figure.
 *
 * Every `everyMs` the governor reads the resident set; when it is more than `max(minStepBytes, ratio × baseline)`
 * above the baseline (what it was right after the last collection, lowered whenever it falls) *and* higher than it
 * has ever been, it runs a full synchronous collection, which also asks mimalloc to return its free pages
 * (`Bun.gc(true)`), and takes the new baseline. Only a new high can raise the peak a limit meets: the usual rise and
 * fall of a manager at rest (the engine collecting on its own between periodic passes over 5000 Nodes) stays below
 * the start-up wave's high and costs no full collection, while a storm's growth is met one step at a time (each a
 * few milliseconds at 1000 Nodes).
 */

export interface MemoryGovernorOptions {
  /** The resident set in bytes (`process.memoryUsage.rss`). */
  readonly sample: () => number;
  /** A full collection (`Bun.gc(true)`). */
  readonly collect: () => void;
  /** How often to read the resident set. */
  readonly everyMs?: number;
  /** Growth that triggers a collection, at least. */
  readonly minStepBytes?: number;
  /** Growth that triggers a collection, as a share of the baseline. */
  readonly ratio?: number;
  readonly setInterval?: (fn: () => void, ms: number) => { unref?: () => unknown };
  readonly clearInterval?: (handle: unknown) => void;
}

export interface MemoryGovernor {
  /** One reading: collects when grown past the step. Returns whether it collected. */
  tick(): boolean;
  /** The number of collections run. */
  readonly collections: number;
  stop(): void;
}

const MIB = 1024 * 1024;
export const DEFAULT_EVERY_MS = 250;
export const DEFAULT_MIN_STEP_BYTES = 16 * MIB;
export const DEFAULT_RATIO = 0.25;

/** The growth past `baseline` that triggers a collection. */
export function stepFor(baseline: number, minStepBytes: number, ratio: number): number {
  return Math.max(minStepBytes, Math.round(baseline * ratio));
}

export function startMemoryGovernor(options: MemoryGovernorOptions): MemoryGovernor {
  const minStep = options.minStepBytes ?? DEFAULT_MIN_STEP_BYTES;
  const ratio = options.ratio ?? DEFAULT_RATIO;
  let baseline = options.sample();
  let highest = baseline;
  let collections = 0;
  const tick = (): boolean => {
    const now = options.sample();
    if (now < baseline) baseline = now;
    const newHigh = now > highest;
    if (newHigh) highest = now;
    if (!newHigh || now - baseline <= stepFor(baseline, minStep, ratio)) return false;
    options.collect();
    collections++;
    baseline = options.sample();
    return true;
  };
  const every = options.everyMs ?? DEFAULT_EVERY_MS;
  const handle = (options.setInterval ?? setInterval)(tick, every);
  handle.unref?.();
  return {
    tick,
    get collections() {
      return collections;
    },
    stop: () => (options.clearInterval ?? ((h) => clearInterval(h as ReturnType<typeof setInterval>)))(handle),
  };
}
