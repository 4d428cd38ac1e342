/**
 * Subcommands: every executable has `doctor`; the all-in-one also has `sandbox`. Each is imported when it runs,
 * not at start: the sandbox's emulator and simulated cloud would otherwise sit in every manager's memory.
 */
import type { Subcommand } from "./command.ts";

export const providerSubcommands: Readonly<Record<string, Subcommand>> = {
  doctor: async (env) => (await import("./doctor.ts")).doctorCommand(env),
};

export const allInOneSubcommands: Readonly<Record<string, Subcommand>> = {
  ...providerSubcommands,
  sandbox: async (env) => (await import("./sandbox.ts")).sandboxCommand(env),
};
