/**
 * The options of `npm run bench -- --against-upstream` (and of `npx bun scripts/bench/upstream/index.ts`), read from
 * their flags and checked once, each bad flag named with what it takes.
 */
import { existsSync } from "node:fs";
import { LEVEL_KINDS, type LevelKind } from "./flow-control.ts";

export interface AgainstUpstreamOptions {
  /** Node counts to join (default 200 and 1000). */
  readonly sizes: readonly number[];
  /** Start-up runs per side, the median taken (default 3). */
  readonly runs: number;
  /** Keep build/bench-bin as it is. */
  readonly reuse: boolean;
  /** LoadBalancer Services created at once (0: none), with 3 Nodes and only the service controller. */
  readonly services: number;
  /** Our executable to measure instead of building build/bench-bin from the working tree. */
  readonly ours?: string | undefined;
  /** A folder to keep our heap snapshots in (`<scenario>.heapsnapshot`), for Chrome DevTools. */
  readonly keepSnapshots?: string | undefined;
  /** Measure ours alone: upstream is neither built nor run (its column shows "–"), for checking a change of ours. */
  readonly onlyOurs?: boolean | undefined;
  /** Nodes joined in each one-share APF priority level (rejecting, queuing); 0: those rows are not run. */
  readonly levelNodes: number;
  /** Which of those levels, in this order (default both). */
  readonly levels: readonly LevelKind[];
}

/** `--sizes=1000,5000 --runs=3 --reuse-build` (and `--ours`, `--keep-snapshots`) as the options, or an error. */
export function againstUpstreamOptions(
  sizesFlag: string,
  runsFlag: string,
  reuse: boolean,
  servicesFlag = "100",
  paths: {
    readonly ours?: string | undefined;
    readonly keepSnapshots?: string | undefined;
    readonly onlyOurs?: boolean | undefined;
    readonly levelNodes?: string | undefined;
    readonly levels?: string | undefined;
  } = {},
): AgainstUpstreamOptions {
  const levels = (paths.levels ?? "rejecting,queuing").split(",").filter((l) => l !== "");
  const unknown = levels.filter((l) => !(LEVEL_KINDS as readonly string[]).includes(l));
  if (unknown.length > 0 || levels.length === 0) {
    throw new Error(`--levels must name ${LEVEL_KINDS.join(" and/or ")} separated by commas, got "${paths.levels}"`);
  }
  const levelNodes = Number(paths.levelNodes ?? "1000");
  if (!Number.isInteger(levelNodes) || levelNodes < 0) {
    throw new Error(`--level-nodes must be a whole number ≥ 0, got "${paths.levelNodes}"`);
  }
  const sizes = sizesFlag === "" ? [] : sizesFlag.split(",").map(Number);
  const runs = Number(runsFlag);
  const services = Number(servicesFlag);
  if (!Number.isInteger(services) || services < 0) {
    throw new Error(`--services must be a whole number ≥ 0, got "${servicesFlag}"`);
  }
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`--sizes must be whole numbers ≥ 1 separated by commas, got "${sizesFlag}"`);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, got "${runsFlag}"`);
  if (paths.ours !== undefined && !existsSync(paths.ours)) {
    throw new Error(`--ours must name our compiled executable, "${paths.ours}" does not exist (npm run build)`);
  }
  return {
    sizes,
    runs,
    reuse,
    services,
    ours: paths.ours,
    keepSnapshots: paths.keepSnapshots,
    onlyOurs: paths.onlyOurs,
    levelNodes,
    levels: levels as LevelKind[],
  };
}
