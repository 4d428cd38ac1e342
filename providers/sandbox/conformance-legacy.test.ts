/**
 * The sandbox provider's legacy mode (`instances: legacy`: Instances and Zones instead of InstancesV2) against the
 * conformance suite, over a real simulated cloud as in conformance.test.ts; the instances and zones checks that
 * the default mode skips run here.
 */
import { runConformance } from "../conformance/suite.ts";
import { sandboxProvider } from "./provider.ts";
import { sandboxArrange, startTestCloud } from "./testing.ts";

await runConformance({
  name: "sandbox",
  maxLoadBalancerNameLength: 32,
  setup() {
    const t = startTestCloud();
    return {
      provider: sandboxProvider(t.api, { instances: "legacy" }),
      arrange: sandboxArrange(t.cloud),
      teardown: () => t.stop(),
    };
  },
});
