/**
 * Test helpers for what fails: the error a call rejects with, for assertions on its class and fields. Shared by
 * the provider and controller tests; nothing in production imports this file. A `ConfigError`'s helpers are in
 * `config/testing.ts`.
 */

/** The error `run` rejects with; fails the test when it resolves. */
export async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}
