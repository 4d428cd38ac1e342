/** Subcommands: every executable has `doctor` and `plan`; the all-in-one also has `sandbox`. */
import type { Subcommand } from "./command.ts";
import { doctorCommand } from "./doctor.ts";
import { planCommand } from "./plan.ts";
import { sandboxCommand } from "./sandbox.ts";

export const providerSubcommands: Readonly<Record<string, Subcommand>> = {
  doctor: doctorCommand,
  plan: planCommand,
};

export const allInOneSubcommands: Readonly<Record<string, Subcommand>> = {
  ...providerSubcommands,
  sandbox: sandboxCommand,
};
