/** The subcommands of the all-in-one executable. Per-provider executables have none. */
import type { Subcommand } from "./command.ts";
import { sandboxCommand } from "./sandbox.ts";

export const allInOneSubcommands: Readonly<Record<string, Subcommand>> = {
  sandbox: sandboxCommand,
};
