/**
 * Small process helpers shared by the test harnesses (`test/support/`), the benchmarks and the test tiers.
 */

/** A TCP port on 127.0.0.1 that was free a moment ago (another process may still take it). */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

export interface CollectedOutput {
  /** Everything printed so far, stdout and stderr interleaved by arrival. */
  text(): string;
  /** Resolves when both streams have ended. */
  readonly drained: Promise<void>;
}

/** Reads a spawned process's stdout and stderr as they arrive, into one text. */
export function collectOutput(proc: {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
}): CollectedOutput {
  let out = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)]).then(() => undefined);
  return { text: () => out, drained };
}

/**
 * Calls `probe` every `everyMs` until it gives a value (a throw counts as no value yet), and returns that value.
 * Fails after `timeoutMs`, or at once when `alive` says the process being waited on has gone.
 */
export async function pollFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 60_000, everyMs = 100, alive }: { timeoutMs?: number; everyMs?: number; alive?: () => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (alive && !alive()) throw new Error(`the executable exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
