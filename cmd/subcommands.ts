/** The subcommands of the all-in-one executable. Per-provider executables have none. */
import type { Subcommand } from "./command.ts";

export const allInOneSubcommands: Readonly<Record<string, Subcommand>> = {};
