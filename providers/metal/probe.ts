/**
 * The shutdown probe: a machine whose TCP port answers is running. Refused, unreachable or silent until the
 * timeout all count as "not answering". Only the lifecycle controller asks, and only for NotReady nodes, so a
 * NotReady node whose probe port does not answer is reported shut down (a NoSchedule taint, never a deletion).
 */
import { connect as netConnect } from "node:net";

/** Opens a TCP connection and closes it again; resolves when it connected, rejects otherwise. */
export type Connect = (host: string, port: number, signal: AbortSignal) => Promise<void>;

export const tcpConnect: Connect = (host, port, signal) =>
  new Promise<void>((resolve, reject) => {
    const socket = netConnect({ host, port });
    const finish = (err?: Error) => {
      signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => finish(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => finish());
    socket.once("error", (err) => finish(err));
  });

export interface ProbeResult {
  readonly answered: boolean;
  /** Why it did not answer (`ECONNREFUSED`, `timed out after 2000ms`). */
  readonly reason?: string;
}

/**
 * Whether `host:port` answers within `timeoutMs`. Rejects only when `signal` aborts (the caller is stopping), so
 * a stopping controller never reads "shut down" from its own cancellation.
 */
export async function probeTCP(
  connect: Connect,
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ProbeResult> {
  signal.throwIfAborted();
  const attempt = new AbortController();
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    stop = () => {
      attempt.abort(signal.reason);
      reject(signal.reason);
    };
  });
  // Handled here too: an abort that lands after the race settled must not surface as an unhandled rejection.
  aborted.catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => {
      attempt.abort(new Error("probe timed out"));
      resolve({ answered: false, reason: `timed out after ${timeoutMs}ms` });
    }, timeoutMs);
  });
  try {
    const connected = connect(host, port, attempt.signal).then(
      (): ProbeResult => ({ answered: true }),
      (err: unknown): ProbeResult => ({
        answered: false,
        reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err),
      }),
    );
    const result = await Promise.race([connected, timeout, aborted]);
    signal.throwIfAborted();
    return result;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  }
}
