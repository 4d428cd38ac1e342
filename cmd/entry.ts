/**
 * The process entry shared by every executable: signals to an abort signal, run the command, exit with its code.
 * The only place that exits the process.
 */

import { STARTERS } from "../controllers/starters.ts";
import { redactUrlCredentials } from "../net/url-credentials.ts";
import { startMemoryGovernor } from "../platform/memory-governor.ts";
import { globalRegistry } from "../providers/registry.ts";
import { runCli, type Subcommand } from "./command.ts";
import { createRunManager } from "./manager.ts";
import { type BuildInfo, DEV_BUILD } from "./version.ts";

export interface EntryInput {
  readonly binaryName: string;
  /** How a user types this executable, for the commands it prints; default `binaryName`. */
  readonly invocation?: string;
  readonly presetProvider?: string;
  readonly build?: BuildInfo;
  readonly subcommands?: Readonly<Record<string, Subcommand>>;
}

/** How long after start the JIT's thresholds go back to normal. */
export const JIT_NORMAL_AFTER_MS = 60_000;

export async function main(input: EntryInput): Promise<never> {
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (name: string) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`received ${name} again; exiting now\n`);
      process.exit(1);
    }
    stop.abort(new Error(`received ${name}`));
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  // A storm's garbage is collected as the resident set grows, not only when the engine's own heap says so
  // (platform/memory-governor.ts): the peak a memory limit meets stays near the live data.
  const governor = startMemoryGovernor({ sample: () => process.memoryUsage.rss(), collect: () => Bun.gc(true) });
  // The executable starts with the JIT reluctant (scripts/build.ts `JIT_POLICY`): a start-up wave waits on the API
  // server and the cloud, and the compilers' pages would only add to its peak. A minute on, the periodic work that
  // runs all the time is worth compiling again.
  setTimeout(() => Bun.unsafe.setJITPolicy(1), JIT_NORMAL_AFTER_MS).unref();
  const orphaned = watchNpmParent(process.env, () => stop.abort(new Error("npm, which started it, has exited")));
  let code: number;
  try {
    code = await runCli({
      argv: process.argv.slice(2),
      binaryName: input.binaryName,
      invocation: input.invocation,
      presetProvider: input.presetProvider,
      build: input.build ?? DEV_BUILD,
      registry: globalRegistry,
      runManager: createRunManager(STARTERS),
      subcommands: input.subcommands ?? {},
      signal: stop.signal,
    });
  } catch (err) {
    process.stderr.write(`error: ${redactUrlCredentials((err as Error)?.message ?? String(err))}\n`);
    code = 1;
  }
  clearInterval(orphaned);
  governor.stop();
  process.exit(code);
}

/**
 * Under `npm start`, a SIGTERM to npm ends npm without passing it on: the command would run on with no parent,
 * keeping its temporary folder (kubeconfig, cloud token). It stops as on a signal once npm is gone.
 */
export function watchNpmParent(
  env: Readonly<Record<string, string | undefined>>,
  onGone: () => void,
  ppid: () => number = () => process.ppid,
  everyMs = 1000,
): ReturnType<typeof setInterval> | undefined {
  if (!env.npm_lifecycle_event) return undefined;
  const parent = ppid();
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return timer;
}
