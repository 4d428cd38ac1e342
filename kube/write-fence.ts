/**
 * The contract between whoever may write (a leadership term) and the code that sends writes (the Kubernetes client,
 * the cloud-API kit). The check is synchronous and made right before the request goes on the wire, after every
 * wait (rate limiter, credentials): after a pause (SIGSTOP, a stalled VM) the first thing to run may be an overdue
 * timer or a queued worker, and no timer of the fence's own could have run before it.
 */

/** A write was refused because the term it belongs to is over (or ending); `reason` says why. */
export class TermOverError extends Error {
  override readonly name = "TermOverError";
}

/** One write on the wire, counted until `end()`. */
export interface FencedWrite {
  /**
   * The request's abort signal in place of the caller's: a write once sent cannot be unsent, so it runs to its
   * answer even when its caller stops waiting; this aborts only when the term is over or its grace has run out.
   */
  readonly signal: AbortSignal;
  /**
   * The write is over. `answered: false` when it ended with no answer after it may have reached the server (its own
   * timeout, a connection lost after sending): it may yet land, so a closing term must not hand over as if it had.
   */
  end(answered?: boolean): void;
}

export interface WriteFence {
  /** Throws `TermOverError` when no write may begin; otherwise counts `what` as in flight until `end()`. */
  enter(what: string): FencedWrite;
}

/** HTTP methods that change something. */
export const isWriteMethod = (method: string): boolean => !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());

/** True when `err` or one of its causes is a `TermOverError`. */
export const isTermOver = (err: unknown): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof TermOverError) return true;
  }
  return false;
};

/** Connection refused: nothing reached the server (the cloud, the API server), so even a POST may go again. Bun's and Node's spellings. */
export function isRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ConnectionRefused") return true;
  }
  return false;
}
