/**
 * The shipped scaleway declaration against the conformance suite with Elastic Metal servers as the machines (their
 * Nodes found by name across both products, Instances first, as scw CCM does).
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
          const s = h.baremetal({ name, zone: "nl-ams-1" });
          return { nodeName: name, providerID: `scaleway://baremetal/nl-ams-1/${s.id}` };
        },
        stopMachine({ providerID }) {
          const server = world.baremetal.get(parseProviderID(providerID).id);
          if (server) server.status = "stopped";
        },
        async deleteMachine({ providerID }) {
          await h.call("DELETE", `/_emulator/baremetal/servers/${parseProviderID(providerID).id}`);
        },
      },
      teardown: () => h.stop(),
    };
  },
});
