/**
 * Test helpers for configuration that fails: the `ConfigError` a call throws, and its issues by path. Shared by
 * the kube, provider and command tests; nothing in production imports this file.
 */
import { ConfigError } from "./errors.ts";

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
