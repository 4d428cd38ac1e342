/**
 * The shipped scaleway declaration against the conformance suite, built from scw CCM's environment over the
 * Scaleway emulator (one fresh one per check), as the registry builds it. Machines are Instances;
 * conformance-baremetal.test.ts runs the same suite with Elastic Metal servers.
 */
import { startHarness } from "../../sandbox/scaleway/testing.ts";
import { runConformance } from "../conformance/suite.ts";
import { parseProviderID } from "./provider-id.ts";
import { scwProvider } from "./testing.ts";

await runConformance({
  name: "scaleway",
  async setup() {
    const h = startHarness();
    const provider = await scwProvider(h);
    const world = h.emulator.world;
    return {
      provider,
      arrange: {
        createMachine({ name }) {
          const s = h.instance({ name, zone: "fr-par-2" });
          return { nodeName: name, providerID: `scaleway://instance/fr-par-2/${s.id}` };
        },
        stopMachine({ providerID }) {
          const server = world.instances.get(parseProviderID(providerID).id);
          if (server) server.state = "stopped";
        },
        async deleteMachine({ providerID }) {
          await h.call("DELETE", `/_emulator/instance/servers/${parseProviderID(providerID).id}`);
        },
      },
      teardown: () => h.stop(),
    };
  },
});
