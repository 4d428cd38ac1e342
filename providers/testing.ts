/**
 * Test helpers for what fails: the error a call throws or rejects with, for assertions on its class and fields.
 * Shared by the provider, kube and controller tests; nothing in production imports this file.
 */
import { ConfigError } from "./errors.ts";

/** The error `run` rejects with; fails the test when it resolves. */
export async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

/** The `ConfigError` that `fn` throws; fails the test when it throws nothing, and rethrows any other error. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

/** The issues of the `ConfigError` that `fn` throws, as path → message. */
export function configProblems(fn: () => unknown): Record<string, string> {
  return Object.fromEntries(configError(fn).issues.map((i) => [i.path, i.message]));
}
