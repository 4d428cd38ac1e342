/**
 * The errors a provider returns to the framework, and the ones the framework raises about providers.
 *
 * Upstream compares most sentinel errors by identity; here that is `instanceof` on the thrown value itself
 * (`isError`), and only where upstream looks through wrapping do we walk the `cause` chain (`findInCauseChain`).
 * Each class keeps upstream's exact base message so logs and events read the same. A configuration that cannot
 * work is a `ConfigError`, from `config/errors.ts`: the kubeconfig reader below the providers raises it too.
 */

/** The instance does not exist in the cloud. Not for stopped or sleeping instances. */
export class InstanceNotFoundError extends Error {
  override readonly name = "InstanceNotFoundError";
  constructor(detail?: string, options?: ErrorOptions) {
    super(detail ? `instance not found: ${detail}` : "instance not found", options);
  }
}

/** The provider cannot do this optional operation (upstream `NotImplemented`, message `unimplemented`). */
export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
  constructor(detail?: string, options?: ErrorOptions) {
    super(detail ? `unimplemented: ${detail}` : "unimplemented", options);
  }
}

/** Another controller owns this load balancer; the service controller then does nothing more for it. */
export class ImplementedElsewhereError extends Error {
  override readonly name = "ImplementedElsewhereError";
  constructor(detail?: string, options?: ErrorOptions) {
    super(
      detail ? `implemented by alternate to cloud provider: ${detail}` : "implemented by alternate to cloud provider",
      options,
    );
  }
}

/**
 * Ask for a retry after a fixed delay instead of exponential back-off ("still provisioning", "rate limited").
 * Detected through wrapping: a `RetryError` anywhere in the `cause` chain counts.
 */
export class RetryError extends Error {
  override readonly name = "RetryError";
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** Identity-style check: the value itself is of this class (upstream `err == Sentinel`). */
export function isError<E extends Error>(err: unknown, cls: ErrorClass<E>): err is E {
  return err instanceof cls;
}

/** Wrapping-aware check (upstream `errors.As`): the first error of this class in the `cause` chain. */
export function findInCauseChain<E extends Error>(err: unknown, cls: ErrorClass<E>): E | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    if (cur instanceof cls) return cur;
    seen.add(cur);
    cur = cur.cause;
  }
  return undefined;
}

/** `prefix: message`, keeping the original as `cause` (and so the chain for `findInCauseChain`). */
export function wrapError(prefix: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(`${prefix}: ${message}`, { cause: err });
}
