/** The all-in-one executable in development (`npx bun cmd/main.ts …`, `npm start`); the build generates its own entries. */
import "../providers/all.ts";
import { main } from "./entry.ts";
import { allInOneSubcommands } from "./subcommands.ts";

// From source, the commands it prints say how to run it from source: `cloud-controller-manager` is not on PATH.
await main({
  binaryName: "cloud-controller-manager",
  invocation: "npx bun cmd/main.ts",
  subcommands: allInOneSubcommands,
});
