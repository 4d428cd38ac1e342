/** Subcommands: every executable has `doctor`; the all-in-one also has `sandbox`. */
import type { Subcommand } from "./command.ts";
import { doctorCommand } from "./doctor.ts";
import { sandboxCommand } from "./sandbox.ts";

export const providerSubcommands: Readonly<Record<string, Subcommand>> = {
  doctor: doctorCommand,
};

export const allInOneSubcommands: Readonly<Record<string, Subcommand>> = {
  ...providerSubcommands,
  sandbox: sandboxCommand,
};
