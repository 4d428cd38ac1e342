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
