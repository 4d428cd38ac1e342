/**
 * The sandbox provider against the conformance suite: its real HTTP client talking to a real simulated cloud on
 * loopback, one fresh cloud per check; machines are arranged through the cloud's own state, as an operator would.
 */
import { runConformance } from "../conformance/suite.ts";
import { sandboxProvider } from "./provider.ts";
import { sandboxArrange, startTestCloud } from "./testing.ts";

await runConformance({
  name: "sandbox",
  // The provider names load balancers with upstream's defaultLoadBalancerName.
  maxLoadBalancerNameLength: 32,
  setup() {
    const t = startTestCloud();
    return {
      provider: sandboxProvider(t.api),
      arrange: sandboxArrange(t.cloud),
      teardown: () => t.stop(),
    };
  },
});
