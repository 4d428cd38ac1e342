/**
 * Hetzner's actions: what a write answers with while the change runs (`running`, then `success` or `error`).
 * `followAction` polls one until it ends, within a deadline, so a caller knows the change landed before it reports
 * success — and a failed action is an error naming the action's own code and message.
 *
 * Polling is spaced (hcloud-go polls every 500 ms; we start there and back off to 5 s) because every poll is spent
 * from the project's 3600-an-hour budget.
 */
import * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import type { HcloudTransport } from "./client.ts";

export const actionSchema = v.object({
  id: v.number(),
  command: v.optional(v.string(), ""),
  status: v.string(),
  error: v.optional(v.nullable(v.object({ code: v.string(), message: v.optional(v.string(), "") })), null),
});

export type HcloudAction = v.InferOutput<typeof actionSchema>;

/** An answer carrying one action (`{"action": {…}}`), as every action endpoint sends. */
export const actionAnswer = v.object({ action: actionSchema });

/** The action ended in `error`: `code` and `detail` are the API's. */
export class HcloudActionError extends Error {
  override readonly name = "HcloudActionError";
  constructor(
    readonly operation: string,
    readonly action: HcloudAction,
    options?: ErrorOptions,
  ) {
    const { id, command, error } = action;
    super(
      `${operation}: action ${id} (${command}) failed: ${error?.code ?? "unknown"}: ${error?.message || "(no message)"}`,
      options,
    );
  }
}

export interface FollowOptions {
  /** Error prefix: `hcloud/networks.addRoute`. */
  readonly operation: string;
  /** How long the action may run; default 2 minutes (a server power action takes up to a minute). */
  readonly timeoutMs?: number;
}

const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 5_000;
const DEFAULT_TIMEOUT_MS = 120_000;

/** Waits until `action` ends: resolves with it on `success`, throws `HcloudActionError` on `error`. */
export async function followAction(
  t: HcloudTransport,
  ctx: CallContext,
  action: HcloudAction,
  o: FollowOptions,
): Promise<HcloudAction> {
  const deadline = t.now() + (o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let current = action;
  for (let waitMs = FIRST_POLL_MS; ; waitMs = Math.min(MAX_POLL_MS, waitMs * 2)) {
    if (current.status === "success") return current;
    if (current.status === "error") throw new HcloudActionError(o.operation, current);
    const left = deadline - t.now();
    if (left <= 0) {
      throw new Error(
        `${o.operation}: action ${current.id} (${current.command}) still ${current.status} after ${o.timeoutMs ?? DEFAULT_TIMEOUT_MS}ms; it may still finish, so the next attempt reads the resource again`,
      );
    }
    await t.sleep(Math.min(waitMs, left), ctx.signal);
    if (ctx.signal.aborted) {
      throw new Error(`${o.operation}: aborted while waiting for action ${current.id}`, { cause: ctx.signal.reason });
    }
    const answer = await t.client.request(ctx, {
      operation: "getAction",
      method: "GET",
      path: `/actions/${current.id}`,
      answer: actionAnswer,
    });
    current = answer.action;
  }
}
