/** The all-in-one executable in development (`bun cmd/main.ts …`); the build generates its own entries. */
import "../providers/all.ts";
import { main } from "./entry.ts";
import { allInOneSubcommands } from "./subcommands.ts";

await main({ binaryName: "cloud-controller-manager", subcommands: allInOneSubcommands });
