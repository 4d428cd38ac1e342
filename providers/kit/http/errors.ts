import { ConfigError, type ConfigIssue } from "../../../config/errors.ts";
import { redactUrlCredentials } from "../../../net/url-credentials.ts";
import { findInCauseChain, RetryError } from "../../errors.ts";

/**
 * What the cloud-API kit throws. Every message starts with the operation (`sandbox/api.getMachine: …`), as
 * STYLE.md wants of a provider's errors, so a controller's log line or event names the cloud call that failed.
 *
 * - `CloudApiError`: the cloud answered with an error status. Carries the status and the cloud's own error code.
 * - `CloudApiSchemaError`: a request body or an answer does not match its schema; names each field.
 * - A network failure, a timeout or an abort is a `CloudUnreachableError` with the operation prefix and the cause.
 * - A 429 that outlasts the retries is the framework's `RetryError`, whose `cause` is the `CloudApiError`.
 */

/** The cloud answered `status` with its error `code` (`not_found`, `RateLimited`) and `detail` (its message). */
export class CloudApiError extends Error {
  override readonly name = "CloudApiError";
  constructor(
    /** `sandbox/api.getMachine`: the client's name and the operation. */
    readonly operation: string,
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    /** How many times the call was sent; more than one is said in the message. */
    readonly attempts = 1,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${status} ${code}: ${detail}${attemptsSuffix(attempts)}`, options);
  }
}

/**
 * The cloud's answer was longer than the call's bound (`maxAnswerBytes`): refused, its rest left unread, never
 * retried (the same call would get the same answer). A listing that outgrows the bound is a sign to raise it.
 */
export class CloudApiAnswerTooLargeError extends Error {
  override readonly name = "CloudApiAnswerTooLargeError";
  constructor(
    readonly operation: string,
    readonly status: number,
    /** The bound, in bytes. */
    readonly maxBytes: number,
    /** What the answer's Content-Length declared, when it did. */
    readonly declaredBytes?: number,
    options?: ErrorOptions,
  ) {
    const size = declaredBytes === undefined ? "more than" : `${declaredBytes} bytes, more than`;
    super(
      `${operation}: the cloud's ${status} answer is ${size} the ${maxBytes} bytes one answer may hold (maxAnswerBytes); refused unread`,
      options,
    );
  }
}

/** No answer: the connection was refused or lost, or the attempt timed out or was aborted. */
export class CloudUnreachableError extends Error {
  override readonly name = "CloudUnreachableError";
}

/**
 * Why a cloud call failed, as whoever decides what happens next needs it:
 * - `unavailable`: the cloud did not answer, answered 5xx, 408, 423 or 429, or asked for a retry (`RetryError`);
 *   the same call may well work later, unchanged.
 * - `credentials`: the cloud refused who we are (401) or what we may do (403); an operator must change a secret.
 * - `configuration`: anything else (a `ConfigError`, another 4xx, an answer not of the expected shape, an error of
 *   no known kind): an operator must change the configuration, and retrying unchanged does not help.
 */
export type CloudFailureKind = "unavailable" | "credentials" | "configuration";

const RETRYABLE_STATUSES = new Set([408, 423, 429]);

/** The kind of `err`, looking through wrapping (`cause`); see `CloudFailureKind`. */
export function cloudFailureKind(err: unknown): CloudFailureKind {
  if (findInCauseChain(err, ConfigError)) return "configuration";
  const api = findInCauseChain(err, CloudApiError);
  if (api) {
    if (api.status === 401 || api.status === 403) return "credentials";
    return api.status >= 500 || RETRYABLE_STATUSES.has(api.status) ? "unavailable" : "configuration";
  }
  if (findInCauseChain(err, RetryError) || findInCauseChain(err, CloudUnreachableError)) return "unavailable";
  return "configuration";
}

/** ` (after 4 attempts)`, or nothing for a single attempt. */
export const attemptsSuffix = (attempts: number): string => (attempts > 1 ? ` (after ${attempts} attempts)` : "");

/** A request body the kit refused to send, or an answer it refused to return, with every problem by field. */
export class CloudApiSchemaError extends Error {
  override readonly name = "CloudApiSchemaError";
  constructor(
    readonly operation: string,
    /** Which side failed its schema. */
    readonly side: "request" | "answer",
    readonly issues: readonly ConfigIssue[],
    options?: ErrorOptions,
  ) {
    const what = side === "request" ? "the request body is invalid" : "the cloud's answer is invalid";
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
    super(`${operation}: ${what}: ${list}`, options);
  }
}

/** Secrets shorter than this are not searched for: replacing every "ab" would garble messages and hide nothing. */
const MIN_SECRET_LENGTH = 8;

/**
 * `text` with every secret replaced by `[redacted]`, and the credentials of every URL in it (an endpoint given as
 * `http://user:password@host`) by `xxxxx`. For a header value like `Bearer abc…` the bare credential (`abc…`) is a
 * secret too, since a cloud or a proxy may echo it without the scheme.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const all = new Set<string>();
  for (const s of secrets) {
    all.add(s);
    const space = s.indexOf(" ");
    if (space > 0) all.add(s.slice(space + 1).trim());
  }
  let out = redactUrlCredentials(text);
  for (const s of [...all].filter((x) => x.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join("[redacted]");
  }
  return out;
}
