/**
 * How a check reports a broken contract: a `ContractViolation` whose message names the method, the rule and what
 * the provider did instead, so a failing test reads as a to-do item for the provider author.
 */
import type { Node } from "../../kube/objects.ts";
import { findInCauseChain, InstanceNotFoundError, isError } from "../errors.ts";

export class ContractViolation extends Error {
  override readonly name = "ContractViolation";
}

/** Throw a `ContractViolation` with `message` unless `condition` holds. */
export function must(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ContractViolation(message);
}

/**
 * Run one provider call; a throw becomes a violation naming the call (`what`) and the thrown message, with the
 * original error as `cause`.
 */
export async function answer<T>(what: string, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new ContractViolation(`${what} threw instead of answering: ${messageOf(err)}`, { cause: err });
  }
}

/** The error a call threw, or a violation when it resolved. */
export async function thrown(what: string, call: () => Promise<unknown>): Promise<unknown> {
  let value: unknown;
  try {
    value = await call();
  } catch (err) {
    return err;
  }
  throw new ContractViolation(`${what} must throw, but answered ${show(value)}`);
}

/**
 * `call` must throw `InstanceNotFoundError` itself: the framework checks the thrown value's class, not its cause
 * chain, so a wrapped one counts as a transient failure and is retried forever.
 */
export async function mustThrowInstanceNotFound(what: string, call: () => Promise<unknown>): Promise<void> {
  const err = await thrown(what, call);
  if (isError(err, InstanceNotFoundError)) return;
  if (findInCauseChain(err, InstanceNotFoundError)) {
    throw new ContractViolation(
      `${what} must throw InstanceNotFoundError itself, not wrapped (the framework compares the thrown value's class); got: ${messageOf(err)}`,
      { cause: err },
    );
  }
  throw new ContractViolation(`${what} must throw InstanceNotFoundError; got: ${messageOf(err)}`, { cause: err });
}

/** A short, stable rendering of a value for messages. */
export function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value instanceof Map) return `Map ${JSON.stringify(Object.fromEntries(value))}`;
  return JSON.stringify(value) ?? String(value);
}

/** `node "n" (pid)` or `node "n" (no provider ID)`, for messages. */
export function describeNode(node: Node): string {
  const pid = node.spec?.providerID;
  return `node "${node.metadata?.name ?? ""}" (${pid ? pid : "no provider ID"})`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
