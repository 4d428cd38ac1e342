/**
 * The shipped openstack declaration against the conformance suite, built from an OCCM `cloud.conf` (password
 * authentication) over the OpenStack emulator (one fresh one per check), as the registry builds it. Machines are
 * Nova servers.
 */
import { deleteServer } from "../../sandbox/openstack/state.ts";
import { startHarness } from "../../sandbox/openstack/testing.ts";
import { runConformance } from "../conformance/suite.ts";
import { parseProviderID } from "./provider-id.ts";
import { osProvider } from "./testing.ts";

await runConformance({
  name: "openstack",
  async setup() {
    const h = startHarness();
    const provider = await osProvider(h);
    const world = h.emulator.world;
    return {
      provider,
      arrange: {
        createMachine({ name }) {
          const id = h.server({ name, floatingIP: true });
          return { nodeName: name, providerID: `openstack:///${id}` };
        },
        stopMachine({ providerID }) {
          const server = world.servers.get(parseProviderID(providerID).id);
          if (server) server.status = "SHUTOFF";
        },
        deleteMachine({ providerID }) {
          deleteServer(world, parseProviderID(providerID).id);
        },
      },
      teardown: () => h.stop(),
    };
  },
});
