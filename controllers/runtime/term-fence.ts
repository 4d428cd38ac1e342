/**
 * The write fence of one leadership term (kube/write-fence.ts has the contract). Every Kubernetes client and cloud
 * call of the term's controllers and provider goes through it, so:
 *
 * - a write is refused, synchronously at the write, once `over()` names a reason (another holder, the renew deadline
 *   passed on the wall clock) or the term was ended; such a refusal ends the term, aborting the writes in flight;
 * - `close()` (SIGTERM) refuses new writes but lets those in flight run to their answer, and `drain()` waits for
 *   them, bounded, so the lease is released only after the last write of the term has landed. A write refused
 *   because of `close()` alone (an event, a status patch of a worker finishing) must not abort the others: an abort
 *   does not unsend a request, so the cloud would still apply it after the lease went to the standby.
 */
import { type FencedWrite, TermOverError, type WriteFence } from "../../kube/write-fence.ts";
import type { Sleep } from "./clock.ts";

export interface TermFenceOptions {
  /** Why the term is over, or `undefined` while it holds. Synchronous; asked at every write. */
  readonly over: () => string | undefined;
  readonly sleep: Sleep;
}

export interface TermFence extends WriteFence {
  /**
   * No new write may begin (they throw `TermOverError` naming `reason`); writes in flight go on, and such a refusal
   * does not end the term (only `over()` or `end` abort them).
   */
  close(reason: string): void;
  /** Ends the term at once: new writes are refused and those in flight are aborted. */
  end(reason: string): void;
  /**
   * Resolves true once no write is in flight, or false after `ms` with some still running (those are then aborted).
   * Call after `close` or `end`.
   */
  drain(ms: number): Promise<boolean>;
  inFlight(): number;
}

export function createTermFence(options: TermFenceOptions): TermFence {
  const hard = new AbortController();
  /** Why the term ended (writes in flight aborted); once set, for good. */
  let ended: string | undefined;
  /** Why no new write may begin while those in flight run on (`close`). */
  let closed: string | undefined;
  let count = 0;
  let idle: (() => void)[] = [];

  const end = (reason: string) => {
    ended ??= reason;
    if (!hard.signal.aborted) hard.abort(new TermOverError(`write aborted: ${ended}`));
  };

  const enter = (what: string): FencedWrite => {
    const over = ended ?? options.over();
    if (over !== undefined) {
      end(over);
      throw new TermOverError(`${what} refused: ${over}`);
    }
    if (closed !== undefined) throw new TermOverError(`${what} refused: ${closed}`);
    count++;
    let done = false;
    return {
      signal: hard.signal,
      end: () => {
        if (done) return;
        done = true;
        if (--count > 0) return;
        const waiting = idle;
        idle = [];
        for (const wake of waiting) wake();
      },
    };
  };

  const drain = async (ms: number): Promise<boolean> => {
    if (count === 0) return true;
    const gone = new AbortController();
    const drained = new Promise<boolean>((resolve) => idle.push(() => resolve(true)));
    const late = options.sleep(ms, gone.signal).then(() => false);
    const ok = await Promise.race([drained, late]);
    gone.abort();
    if (!ok) end(closed ?? "the term ended");
    return ok;
  };

  return {
    enter,
    close: (reason) => {
      closed ??= reason;
    },
    end,
    drain,
    inFlight: () => count,
  };
}
