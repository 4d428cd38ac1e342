/** The all-in-one executable in development (`bun cmd/main.ts …`); the build generates its own entries. */
import "../providers/all.ts";
import { main } from "./entry.ts";

await main({ binaryName: "cloud-controller-manager" });
