/**
 * The sandbox provider's legacy mode (`instances: legacy`: Instances and Zones instead of InstancesV2) against the
 * conformance suite, over a real simulated cloud as in conformance.test.ts; the instances and zones checks that
 * the default mode skips run here.
 */
import { runConformance } from "../conformance/suite.ts";
import { sandboxConformance } from "./testing.ts";

await runConformance(sandboxConformance({ instances: "legacy" }));
