/**
 * The shipped scaleway declaration against the conformance suite, built from scw CCM's environment over the
 * Scaleway emulator (one fresh one per check), as the registry builds it. Machines are Instances;
 * conformance-baremetal.test.ts runs the same suite with Elastic Metal servers.
 */
import { runConformance } from "../conformance/suite.ts";
import { conformanceTarget } from "./testing.ts";

await runConformance({ name: "scaleway", setup: () => conformanceTarget("instance", "fr-par-2") });
