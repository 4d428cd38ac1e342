/**
 * The counting both test runners share (`npm test`: scripts/test.ts; `npm run test:real`:
 * scripts/real-apiserver/test-tier.ts): checks that count as one test each, a `bun test` run whose own counts are
 * added, and the last line CI reads (`N passed, N failed`, with `, N skipped` where the runner reports skips).
 */

/** Resolves `true` when the command exits 0; otherwise fails the check with no message (the command said why). */
export async function exitsZero(command: Promise<{ exitCode: number }>): Promise<true> {
  if ((await command).exitCode !== 0) throw new Error("");
  return true;
}

export class Tally {
  passed = 0;
  failed = 0;
  skipped = 0;

  /**
   * One check, printed as `ok   <name> (<seconds>s)` or `FAIL <name> (<seconds>s)[: <message>]`: it fails when
   * `run` throws. Resolves with `run`'s value, or undefined when it failed.
   */
  async check<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
    try {
      const value = await run();
      console.log(`ok   ${name} (${seconds()}s)`);
      this.passed++;
      return value;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      console.log(`FAIL ${name} (${seconds()}s)${message ? `: ${message}` : ""}`);
      this.failed++;
      return undefined;
    }
  }

  /**
   * Runs `bun test <args>` in `cwd`, echoing its output, and adds its pass, fail and skip counts; a run that exits
   * non-zero without a failed test (a file did not load) counts as one failure. Resolves with the test files whose
   * results it printed.
   */
  async bunTest(args: string[], opts: { cwd: string; env: Record<string, string | undefined> }): Promise<Set<string>> {
    const proc = Bun.spawn([process.execPath, "test", ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdout: "inherit",
      stderr: "pipe",
    });
    // bun test writes results to stderr; echo it and keep the summary counts.
    let tail = "";
    const decoder = new TextDecoder();
    // A long end-to-end test prints nothing until it ends: say every 20 s of silence that the run is alive.
    let lastOutput = performance.now();
    let file = "";
    const files = new Set<string>();
    let partial = "";
    const heartbeat = setInterval(() => {
      const silent = Math.round((performance.now() - lastOutput) / 1000);
      if (silent >= 20) process.stderr.write(`… still running${file ? ` ${file}` : ""} (${silent}s without output)\n`);
    }, 20_000);
    try {
      for await (const chunk of proc.stderr) {
        const text = decoder.decode(chunk, { stream: true });
        process.stderr.write(text);
        lastOutput = performance.now();
        // A file's results start with a line `<path>.test.ts:`; a chunk may end inside one.
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          const seen = /^(\S+\.test\.ts):$/.exec(line)?.[1];
          if (seen) {
            files.add(seen);
            file = seen;
          }
        }
        tail = (tail + text).slice(-4000);
      }
    } finally {
      clearInterval(heartbeat);
    }
    const code = await proc.exited;
    const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(tail)?.[1] ?? 0);
    this.passed += count("pass");
    this.failed += count("fail");
    this.skipped += count("skip");
    if (code !== 0 && count("fail") === 0) this.failed++;
    return files;
  }

  /** The runner's last line. */
  summary({ skipped }: { skipped: boolean }): string {
    return `${this.passed} passed, ${this.failed} failed${skipped ? `, ${this.skipped} skipped` : ""}`;
  }
}
