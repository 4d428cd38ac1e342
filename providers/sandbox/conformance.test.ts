/**
 * The sandbox provider against the conformance suite: its real HTTP client talking to a real simulated cloud on
 * loopback, one fresh cloud per check; machines are arranged through the cloud's own state, as an operator would.
 */
import { runConformance } from "../conformance/suite.ts";
import { sandboxProvider } from "./provider.ts";
import { parseProviderID } from "./provider-id.ts";
import { startTestCloud } from "./testing.ts";

await runConformance({
  name: "sandbox",
  // The provider names load balancers with upstream's defaultLoadBalancerName.
  maxLoadBalancerNameLength: 32,
  setup() {
    const t = startTestCloud();
    const { state } = t.cloud;
    return {
      provider: sandboxProvider(t.api),
      arrange: {
        createMachine({ name }) {
          const m = state.createMachine({ name });
          return { nodeName: m.name, providerID: m.providerID, addresses: m.addresses };
        },
        stopMachine({ providerID }) {
          state.updateMachine(parseProviderID(providerID), { state: "stopped" });
        },
        deleteMachine({ providerID }) {
          state.deleteMachine(parseProviderID(providerID));
        },
        listLoadBalancers: () =>
          state
            .listLoadBalancers()
            .map((lb) => ({ name: lb.name, hosts: lb.nodes, ports: lb.ports.map((p) => p.port) })),
      },
      teardown: () => t.stop(),
    };
  },
});
