/**
 * The shipped scaleway declaration against the conformance suite with Elastic Metal servers as the machines (their
 * Nodes found by name across both products, Instances first, as scw CCM does).
 */
import { runConformance } from "../conformance/suite.ts";
import { conformanceTarget } from "./testing.ts";

await runConformance({ name: "scaleway", setup: () => conformanceTarget("baremetal", "nl-ams-1") });
