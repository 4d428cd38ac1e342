/**
 * One attempt of a cloud call: the request on the wire with its own timeout, and the whole answer read, or the way
 * it failed. No retrying and no error answers interpreted here (client.ts does both).
 */
import { isRefused, isWriteMethod } from "../../../kube/write-fence.ts";
import type { CallContext } from "../../cloud.ts";
import { attemptsSuffix, CloudApiAnswerTooLargeError, CloudUnreachableError, redact } from "./errors.ts";
import type { AttemptResult } from "./retry-policy.ts";

export interface SendInput {
  /** `sandbox/api.getMachine`, for messages. */
  readonly op: string;
  readonly method: string;
  readonly url: string;
  /** JSON text, or `undefined` for none. */
  readonly body: string | undefined;
  /** Every header to send, auth included; the values of `secrets` never appear in a message. */
  readonly headers: Readonly<Record<string, string>>;
  readonly secrets: readonly string[];
  readonly ctx: CallContext;
  readonly timeoutMs: number;
  /** The longest answer body read; a longer one is a `CloudApiAnswerTooLargeError`. */
  readonly maxAnswerBytes: number;
  readonly fetch: typeof fetch;
}

export type Attempt =
  /** The cloud answered (any status); `text` is the whole body. */
  | { readonly kind: "answer"; readonly response: Response; readonly text: string }
  /** No answer. `aborted`: the caller's signal ended it (never retried). */
  | {
      readonly kind: "failed";
      readonly result: Extract<AttemptResult, { kind: "refused" | "lost" }>;
      readonly aborted: boolean;
      /** The failure as the caller will see it, with the number of attempts made when more than one. */
      readonly error: (attempts: number) => Error;
    };

export async function send(input: SendInput): Promise<Attempt> {
  const timeout = AbortSignal.timeout(input.timeoutMs);
  // Synchronous from the fence's check to `fetch` (kube/write-fence.ts); a refusal is thrown, never retried.
  const write = isWriteMethod(input.method) ? input.ctx.fence?.enter(`${input.op}: ${input.method}`) : undefined;
  // Settled: the cloud answered, or the write never reached it (refused). Otherwise it may yet land (the fence's).
  let settled = false;
  try {
    const response = await input.fetch(input.url, {
      method: input.method,
      headers: input.headers,
      ...(input.body !== undefined && { body: input.body }),
      // A write once sent runs to its answer even when the caller stops waiting: aborting would not unsend it.
      signal: AbortSignal.any([write?.signal ?? input.ctx.signal, timeout]),
    });
    settled = true;
    return { kind: "answer", response, text: await readBounded(response, input) };
  } catch (err) {
    if (err instanceof CloudApiAnswerTooLargeError) throw err;
    settled ||= isRefused(err);
    if (write?.signal.aborted) throw write.signal.reason;
    const aborted = input.ctx.signal.aborted;
    const timedOut = timeout.aborted && !aborted;
    const what = timedOut
      ? `no answer within ${input.timeoutMs}ms`
      : `${input.method} ${input.url}: ${err instanceof Error ? err.message : String(err)}`;
    const message = `${input.op}: ${redact(what, input.secrets)}`;
    return {
      kind: "failed",
      result: { kind: isRefused(err) ? "refused" : "lost" },
      aborted,
      error: (attempts) => new CloudUnreachableError(`${message}${attemptsSuffix(attempts)}`, { cause: err }),
    };
  } finally {
    write?.end(settled);
  }
}

/**
 * The answer's body as text, read as a stream and given up past `maxAnswerBytes`: a runaway answer costs the bound,
 * not the process's memory (a 256 MB listing read whole took the manager from 64 MB to 1.77 GB resident). A
 * Content-Length past the bound is refused before a byte is read.
 */
async function readBounded(response: Response, input: SendInput): Promise<string> {
  const max = input.maxAnswerBytes;
  const tooLarge = (declared?: number) => new CloudApiAnswerTooLargeError(input.op, response.status, max, declared);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(declared);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}
