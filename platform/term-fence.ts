/**
 * The write fence of one leadership term (kube/write-fence.ts has the contract). Every Kubernetes client and cloud
 * call of the term's controllers and provider goes through it, so:
 *
 * - a write is refused, synchronously at the write, once `over()` names a reason (another holder, the renew deadline
 *   passed on the wall clock) or the term was ended; such a refusal ends the term, aborting the writes in flight;
 * - `close()` (SIGTERM) refuses new writes but lets those in flight run to their answer, and `drain()` waits for
 *   them, bounded, so the lease is released only after the last write of the term has landed. A write refused
 *   because of `close()` alone (an event, a status patch of a worker finishing) must not abort the others: an abort
 *   does not unsend a request, so the cloud would still apply it after the lease went to the standby. For the same
 *   reason a write that ends without an answer once the term is closing (its own timeout, a connection lost after
 *   sending) may yet land: `drain()` then says false, and the lease is left to expire instead of being released.
 */

import type { Sleep } from "../kube/clock.ts";
import { type FencedWrite, TermOverError, type WriteFence } from "../kube/write-fence.ts";

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
   * Resolves true once no write is in flight, or false after `ms` with some still running (those are then aborted),
   * or when one ended unanswered after `close` (it may yet land). Call after `close` or `end`.
   */
  drain(ms: number): Promise<boolean>;
  /** What each write in flight is (`PUT /…`, `sandbox/api.putLoadBalancer: PUT`), oldest first. */
  inFlight(): readonly string[];
  /** The writes that ended without an answer after `close`: they may yet land. */
  unanswered(): readonly string[];
}

export function createTermFence(options: TermFenceOptions): TermFence {
  const hard = new AbortController();
  /** Why the term ended (writes in flight aborted); once set, for good. */
  let ended: string | undefined;
  /** Why no new write may begin while those in flight run on (`close`). */
  let closed: string | undefined;
  /** The writes in flight, by a number of their own (one `what` may be in flight more than once). */
  const writes = new Map<number, string>();
  let seq = 0;
  const unanswered: string[] = [];
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
    const id = seq++;
    writes.set(id, what);
    return {
      signal: hard.signal,
      end: (answered = true) => {
        if (!writes.delete(id)) return;
        if (!answered && closed !== undefined && ended === undefined) unanswered.push(what);
        if (writes.size > 0) return;
        const waiting = idle;
        idle = [];
        for (const wake of waiting) wake();
      },
    };
  };

  const drain = async (ms: number): Promise<boolean> => {
    if (writes.size === 0) return unanswered.length === 0;
    const gone = new AbortController();
    const drained = new Promise<boolean>((resolve) => idle.push(() => resolve(true)));
    const late = options.sleep(ms, gone.signal).then(() => false);
    const ok = await Promise.race([drained, late]);
    gone.abort();
    if (!ok) end(closed ?? "the term ended");
    return ok && unanswered.length === 0;
  };

  return {
    enter,
    close: (reason) => {
      closed ??= reason;
    },
    end,
    drain,
    inFlight: () => [...writes.values()],
    unanswered: () => [...unanswered],
  };
}

/** A fence over the terms a process holds at once (leader migration's two locks), growing as they start. */
export interface FenceSet extends WriteFence {
  add(fence: WriteFence): void;
}

/**
 * A write passes only when every term held passes it, and is counted in each until it ends; it is aborted when any
 * of them ends. For the writes that belong to no one controller (the provider's own Kubernetes client): once either
 * lock is lost, none of them may land, so the other manager never meets one of ours.
 */
export function createFenceSet(): FenceSet {
  const fences: WriteFence[] = [];
  return {
    add: (fence) => {
      fences.push(fence);
    },
    enter: (what) => {
      const entered: FencedWrite[] = [];
      try {
        for (const fence of fences) entered.push(fence.enter(what));
      } catch (err) {
        for (const write of entered) write.end();
        throw err;
      }
      return {
        signal: AbortSignal.any(entered.map((w) => w.signal)),
        end: (answered) => {
          for (const write of entered) write.end(answered);
        },
      };
    },
  };
}
