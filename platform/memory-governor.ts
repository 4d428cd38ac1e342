/**
 * Collects garbage when the resident set grows, so a storm's peak is the live data plus a step, not whatever the
 * collector let pile up. A join storm decodes every response and watch event whole (a kubelet-shaped Node is 8–15 KiB
 * of JSON, and each initialisation sees four of them); almost all of it is garbage a moment later, but JavaScriptCore
 * collects by its own heap's growth and does not count the allocator's pages outside it (response bodies, strings),
 * so the resident set could climb tens of MiB above the live data before a full collection ran. Go's runtime paces its
 * collector on the heap it actually allocated (`GOGC`); this is the same idea read off the kernel's figure.
 *
 * The governor reads the resident set and, when it is more than `max(minStepBytes, ratio × baseline)` above the
 * baseline (what it was right after the last collection, lowered whenever it falls) *and* higher than it has ever
 * been, runs a full synchronous collection, which also asks mimalloc to return its free pages (`Bun.gc(true)`), and
 * takes the new baseline. Only a new high can raise the peak a limit meets: the usual rise and fall of a manager at
 * rest (the engine collecting on its own between periodic passes over 5000 Nodes) stays below the start-up wave's high
 * and costs no full collection, while a storm's growth is met one step at a time (each a few milliseconds at 1000
 * Nodes).
 *
 * It reads every `everyMs` while the resident set grows, and backs off (doubling, up to `restEveryMs`) while it does
 * not: a timer four times a second costs a manager at rest more than everything else it does between its periodic
 * passes, and a storm announces itself by growth within one reading. When growth that made a new high has settled
 * (the first reading at the slowest pace), one more collection returns what the wave left behind, so the manager
 * rests at its live data and not at the wave's leftovers; at rest, with no new high, it never runs.
 */

export interface MemoryGovernorOptions {
  /** The resident set in bytes (`process.memoryUsage.rss`). */
  readonly sample: () => number;
  /** A full collection (`Bun.gc(true)`). */
  readonly collect: () => void;
  /** How often to read the resident set while it grows. */
  readonly everyMs?: number;
  /** How often to read it at rest: the pace backs off to this. */
  readonly restEveryMs?: number;
  /** Growth between two readings that counts as activity (back to `everyMs`). */
  readonly activityBytes?: number;
  /** Growth that triggers a collection, at least. */
  readonly minStepBytes?: number;
  /** Growth that triggers a collection, as a share of the baseline. */
  readonly ratio?: number;
  readonly setTimeout?: (fn: () => void, ms: number) => { unref?: () => unknown };
  readonly clearTimeout?: (handle: unknown) => void;
}

export interface MemoryGovernor {
  /** One reading: collects when grown past the step, or when a new high has settled. Returns whether it collected. */
  tick(): boolean;
  /** The number of collections run. */
  readonly collections: number;
  /** The wait before the next reading. */
  readonly nextDelayMs: number;
  stop(): void;
}

const MIB = 1024 * 1024;
export const DEFAULT_EVERY_MS = 250;
export const DEFAULT_REST_EVERY_MS = 2000;
export const DEFAULT_ACTIVITY_BYTES = MIB;
export const DEFAULT_MIN_STEP_BYTES = 16 * MIB;
export const DEFAULT_RATIO = 0.25;

/** The growth past `baseline` that triggers a collection. */
export function stepFor(baseline: number, minStepBytes: number, ratio: number): number {
  return Math.max(minStepBytes, Math.round(baseline * ratio));
}

export function startMemoryGovernor(options: MemoryGovernorOptions): MemoryGovernor {
  const minStep = options.minStepBytes ?? DEFAULT_MIN_STEP_BYTES;
  const ratio = options.ratio ?? DEFAULT_RATIO;
  const fast = options.everyMs ?? DEFAULT_EVERY_MS;
  const rest = Math.max(fast, options.restEveryMs ?? DEFAULT_REST_EVERY_MS);
  const activity = options.activityBytes ?? DEFAULT_ACTIVITY_BYTES;
  let baseline = options.sample();
  let highest = baseline;
  let previous = baseline;
  // The start is a wave of its own: read at the fast pace, and settle it like any other new high.
  let unsettledHigh = true;
  let delay = fast;
  let collections = 0;
  const collect = () => {
    options.collect();
    collections++;
    baseline = options.sample();
    previous = baseline;
    unsettledHigh = false;
  };
  const tick = (): boolean => {
    const now = options.sample();
    const grew = now - previous > activity;
    previous = now;
    delay = grew ? fast : Math.min(rest, delay * 2);
    if (now < baseline) baseline = now;
    if (now > highest) {
      highest = now;
      unsettledHigh = true;
      if (now - baseline > stepFor(baseline, minStep, ratio)) {
        collect();
        return true;
      }
    }
    if (delay === rest && unsettledHigh && now - baseline > activity) {
      collect();
      return true;
    }
    if (delay === rest) unsettledHigh = false;
    return false;
  };
  const set = options.setTimeout ?? setTimeout;
  let handle: { unref?: () => unknown } | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    handle = set(() => {
      tick();
      schedule();
    }, delay);
    handle.unref?.();
  };
  schedule();
  return {
    tick,
    get collections() {
      return collections;
    },
    get nextDelayMs() {
      return delay;
    },
    stop: () => {
      stopped = true;
      (options.clearTimeout ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>)))(handle);
    },
  };
}
